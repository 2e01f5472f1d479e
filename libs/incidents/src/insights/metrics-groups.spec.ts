import fc from 'fast-check';
import { factsAtOpening, type IncidentFacts, METRICS_GROUPINGS, type MetricsGroup, type MetricsGrouping } from './incident-metrics';
import { isoWeek, measured, metricsGroups, select } from './metrics-groups';
import { SEVERITIES } from '../incident';

const DECLARED = '2026-12-01T10:00:00.000Z';
const after = (seconds: number) => new Date(Date.parse(DECLARED) + seconds * 1000).toISOString();

const facts = (id: string, extra: Partial<IncidentFacts> = {}): IncidentFacts => ({
  ...factsAtOpening({ id, declaredAt: DECLARED, severity: 'SEV-2', visibility: null, alerts: 0 }),
  ...extra,
});

const SERVICES: Record<string, string> = { 'svc-a': 'payments', 'svc-b': 'checkout', 'svc-c': 'payments' };
const serviceName = (id: string) => SERVICES[id] ?? null;

/** The groups of incidents as the facts give them, each measured as the api's copy of the read model measures it. */
const groupsOf = (all: IncidentFacts[], groupBy: MetricsGrouping, names: (id: string) => string | null) => metricsGroups(all.map(measured), groupBy, names);

const NO_TIMES = { p50: null, p90: null, mean: null };
const EMPTY: Omit<MetricsGroup, 'key'> = {
  incidents: 0,
  acknowledged: 0,
  resolved: 0,
  escalated: 0,
  canceled: 0,
  duplicates: 0,
  alerts: 0,
  time_to_acknowledge: NO_TIMES,
  time_to_resolve: NO_TIMES,
};

describe('response metrics', () => {
  it('answers one empty group for none over no incidents, and no group for the other groupings', () => {
    expect(groupsOf([], 'none', serviceName)).toEqual([{ key: null, ...EMPTY }]);
    for (const groupBy of ['service', 'severity', 'week'] as const) expect(groupsOf([], groupBy, serviceName)).toEqual([]);
  });

  it('counts acknowledgements, resolutions, escalations and alerts, with times in seconds from the declaration', () => {
    const [group] = groupsOf(
      [
        facts('INC-1', { acknowledgedAt: after(30), resolvedAt: after(600), escalated: true, alerts: 3 }),
        facts('INC-2', { acknowledgedAt: after(90.5) }),
        facts('INC-3', { alerts: 1 }),
      ],
      'none',
      serviceName,
    );
    expect(group).toEqual({
      key: null,
      incidents: 3,
      acknowledged: 2,
      resolved: 1,
      escalated: 1,
      canceled: 0,
      duplicates: 0,
      alerts: 4,
      time_to_acknowledge: { p50: 30, p90: 90.5, mean: 60.25 },
      time_to_resolve: { p50: 600, p90: 600, mean: 600 },
    });
  });

  it('counts canceled and duplicate incidents in their own fields only, whatever happened to them before', () => {
    const busy = { acknowledgedAt: after(10), resolvedAt: after(20), escalated: true, alerts: 5 };
    const [group] = groupsOf([facts('INC-1', { ...busy, outcome: 'canceled' }), facts('INC-2', { ...busy, outcome: 'duplicate' }), facts('INC-3', { outcome: 'duplicate' })], 'none', serviceName);
    expect(group).toEqual({ key: null, ...EMPTY, canceled: 1, duplicates: 2 });
  });

  it('takes percentiles by nearest rank: p50 of 1..10 is 5, p90 is 9; p90 of two is the larger', () => {
    const ten = Array.from({ length: 10 }, (_, i) => facts(`INC-${i}`, { acknowledgedAt: after(10 - i) }));
    expect(groupsOf(ten, 'none', serviceName)[0].time_to_acknowledge).toEqual({ p50: 5, p90: 9, mean: 5.5 });
    const two = [facts('INC-1', { resolvedAt: after(1) }), facts('INC-2', { resolvedAt: after(100) })];
    expect(groupsOf(two, 'none', serviceName)[0].time_to_resolve).toEqual({ p50: 1, p90: 100, mean: 50.5 });
  });

  it('keeps millisecond precision and rounds the mean to the millisecond', () => {
    const three = [facts('INC-1', { acknowledgedAt: after(0.001) }), facts('INC-2', { acknowledgedAt: after(0.001) }), facts('INC-3', { acknowledgedAt: after(0.002) })];
    expect(groupsOf(three, 'none', serviceName)[0].time_to_acknowledge).toEqual({ p50: 0.001, p90: 0.002, mean: 0.001 });
  });

  it('groups by service name, incidents of no service (or of a service without a name) last under null', () => {
    const groups = groupsOf(
      [facts('INC-1', { serviceId: 'svc-a' }), facts('INC-2', { serviceId: 'svc-b' }), facts('INC-3', { serviceId: 'svc-c' }), facts('INC-4'), facts('INC-5', { serviceId: 'gone' })],
      'service',
      serviceName,
    );
    expect(groups.map(({ key, incidents }) => [key, incidents])).toEqual([
      ['checkout', 1],
      ['payments', 2],
      [null, 2],
    ]);
  });

  it('groups by REST severity, only severities with incidents, a group of canceled ones too', () => {
    const groups = groupsOf([facts('INC-1', { severity: 'SEV-3' }), facts('INC-2', { severity: 'SEV-1', outcome: 'canceled' }), facts('INC-3', { severity: 'SEV-3' })], 'severity', serviceName);
    expect(groups).toEqual([
      { key: 'SEV-1', ...EMPTY, canceled: 1 },
      { key: 'SEV-3', ...EMPTY, incidents: 2 },
    ]);
  });

  it('groups by ISO week of the declaration in UTC, with the ISO week-year', () => {
    const groups = groupsOf(
      [
        facts('INC-1', { declaredAt: '2026-12-03T00:00:00.000Z' }),
        facts('INC-2', { declaredAt: '2026-12-31T23:59:59.999Z' }),
        facts('INC-3', { declaredAt: '2027-01-01T00:00:00.000Z' }),
        facts('INC-4', { declaredAt: '2027-01-04T00:00:00.000Z' }),
        facts('INC-5', { declaredAt: '2027-01-03T23:59:59.999Z' }),
      ],
      'week',
      serviceName,
    );
    expect(groups.map(({ key, incidents }) => [key, incidents])).toEqual([
      ['2026-W49', 1],
      ['2026-W53', 3],
      ['2027-W01', 1],
    ]);
    expect(isoWeek('2020-12-31T12:00:00.000Z')).toBe('2020-W53');
    expect(isoWeek('2021-01-03T23:59:59.999Z')).toBe('2020-W53');
    expect(isoWeek('2019-12-30T00:00:00.000Z')).toBe('2020-W01');
  });

  it('sorts keys by code point, not by UTF-16 unit', () => {
    const names: Record<string, string> = { high: '\u{1F525} fire', private: '\uE000 private use', plain: 'zeta' };
    const groups = groupsOf(Object.keys(names).map((id) => facts(id, { serviceId: id })), 'service', (id) => names[id]);
    expect(groups.map(({ key }) => key)).toEqual(['zeta', '\uE000 private use', '\u{1F525} fire']);
  });
});

// Property tests: the aggregation against naive definitions written differently.

const TIME_RANGE = { min: Date.UTC(2015, 0, 1), max: Date.UTC(2035, 11, 31) };
const anIncident = fc.record({
  id: fc.uuid(),
  declaredAt: fc.integer(TIME_RANGE).map((ms) => new Date(ms).toISOString()),
  severity: fc.constantFrom(...SEVERITIES),
  serviceId: fc.option(fc.constantFrom('svc-a', 'svc-b', 'svc-c', 'gone'), { nil: null }),
  visibility: fc.constant(null),
  outcome: fc.constantFrom('counted' as const, 'counted' as const, 'canceled' as const, 'duplicate' as const),
  acknowledgedAt: fc.option(fc.integer({ min: 0, max: 10 ** 7 }), { nil: null }),
  resolvedAt: fc.option(fc.integer({ min: 0, max: 10 ** 8 }), { nil: null }),
  escalated: fc.boolean(),
  alerts: fc.nat(20),
});
const incidents = fc.array(anIncident, { maxLength: 60 }).map((drawn) =>
  drawn.map((incident): IncidentFacts => {
    const later = (ms: number | null) => (ms === null ? null : new Date(Date.parse(incident.declaredAt) + ms).toISOString());
    return { ...incident, acknowledgedAt: later(incident.acknowledgedAt), resolvedAt: later(incident.resolvedAt) };
  }),
);

/** The smallest value at least p percent of the values are at or below. */
const naivePercentile = (values: number[], percent: number) => [...values].sort((a, b) => a - b).find((v) => 100 * values.filter((w) => w <= v).length >= percent * values.length);

/** The ISO week by its definition: the week (Monday to Sunday) belongs to the year of its Thursday. */
function naiveIsoWeek(ms: number): string {
  const day = new Date(ms);
  const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  const thursday = new Date(midnight + (3 - ((day.getUTCDay() + 6) % 7)) * 86_400_000);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * 86_400_000)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

const sum = (groups: MetricsGroup[], field: 'incidents' | 'acknowledged' | 'resolved' | 'escalated' | 'canceled' | 'duplicates' | 'alerts') =>
  groups.reduce((total, group) => total + group[field], 0);

describe('response metrics, properties', () => {
  it('takes p50 and p90 as the naive nearest rank, and the mean to the millisecond', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 ** 9 }), { minLength: 1, maxLength: 200 }), (ms) => {
        const [group] = groupsOf(ms.map((taken, i) => facts(`INC-${i}`, { resolvedAt: new Date(Date.parse(DECLARED) + taken).toISOString() })), 'none', serviceName);
        expect(group.time_to_resolve).toEqual({
          p50: naivePercentile(ms, 50)! / 1000,
          p90: naivePercentile(ms, 90)! / 1000,
          mean: Math.round(ms.reduce((a, b) => a + b, 0) / ms.length) / 1000,
        });
      }),
    );
  });

  it('selects the value of any rank as a sort would put it there, with none greater before it and none smaller after, many equal values among them', () => {
    const values = fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 10 ** 9 })), { minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(values, fc.nat(), (list, seed) => {
        const k = seed % list.length;
        const selected = Float64Array.from(list);
        select(selected, k, 0, list.length - 1);
        const sorted = Float64Array.from(list).sort();
        expect(selected[k]).toBe(sorted[k]);
        expect(selected.subarray(0, k).every((value) => value <= sorted[k])).toBe(true);
        expect(selected.subarray(k + 1).every((value) => value >= sorted[k])).toBe(true);
        expect(Float64Array.from(selected).sort()).toEqual(sorted);
      }),
    );
  });

  it('measures a time between any two record times as Date.parse does, in any year', () => {
    const instant = fc.integer({ min: Date.parse('0000-01-01T00:00:00.000Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }).map((ms) => new Date(ms).toISOString());
    fc.assert(
      fc.property(instant, instant, (declaredAt, acknowledgedAt) => {
        const [group] = groupsOf([facts('INC-1', { declaredAt, acknowledgedAt })], 'none', serviceName);
        expect(group.time_to_acknowledge.p50).toBe((Date.parse(acknowledgedAt) - Date.parse(declaredAt)) / 1000);
      }),
    );
  });

  it('names the ISO week as its definition does, across year boundaries', () => {
    // Every day from 28 December to 4 January of 2015-2035, and any instant besides.
    const nearNewYear = fc.tuple(fc.integer({ min: 2015, max: 2035 }), fc.integer({ min: -4, max: 3 }), fc.integer({ min: 0, max: 86_399_999 })).map(([year, day, ms]) => Date.UTC(year, 0, 1) + day * 86_400_000 + ms);
    fc.assert(fc.property(fc.oneof(nearNewYear, fc.integer(TIME_RANGE)), (ms) => expect(isoWeek(new Date(ms).toISOString())).toBe(naiveIsoWeek(ms))));
  });

  it('splits the incidents among the groups without losing or adding one, whatever the grouping', () => {
    fc.assert(
      fc.property(incidents, fc.constantFrom(...METRICS_GROUPINGS), (all, groupBy) => {
        const groups = groupsOf(all, groupBy, serviceName);
        const counted = all.filter((incident) => incident.outcome === 'counted');
        expect(sum(groups, 'incidents')).toBe(counted.length);
        expect(sum(groups, 'canceled')).toBe(all.filter((incident) => incident.outcome === 'canceled').length);
        expect(sum(groups, 'duplicates')).toBe(all.filter((incident) => incident.outcome === 'duplicate').length);
        expect(sum(groups, 'acknowledged')).toBe(counted.filter((incident) => incident.acknowledgedAt !== null).length);
        expect(sum(groups, 'resolved')).toBe(counted.filter((incident) => incident.resolvedAt !== null).length);
        expect(sum(groups, 'escalated')).toBe(counted.filter((incident) => incident.escalated).length);
        expect(sum(groups, 'alerts')).toBe(counted.reduce((total, incident) => total + incident.alerts, 0));
        for (const group of groups) {
          expect(group.acknowledged).toBeLessThanOrEqual(group.incidents);
          expect(group.resolved).toBeLessThanOrEqual(group.incidents);
          expect(group.escalated).toBeLessThanOrEqual(group.incidents);
        }
      }),
    );
  });

  it('answers each group as the metrics of its own incidents alone, keys unique and sorted, null last', () => {
    const keyOf: Record<string, (incident: IncidentFacts) => string | null> = {
      service: (incident) => (incident.serviceId === null ? null : serviceName(incident.serviceId)),
      severity: (incident) => incident.severity,
      week: (incident) => naiveIsoWeek(Date.parse(incident.declaredAt)),
      none: () => null,
    };
    fc.assert(
      fc.property(incidents, fc.constantFrom(...METRICS_GROUPINGS), (all, groupBy) => {
        const groups = groupsOf(all, groupBy, serviceName);
        const keys = groups.map(({ key }) => key);
        const named = keys.filter((key): key is string => key !== null);
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys.slice(named.length).every((key) => key === null)).toBe(true);
        expect(named).toEqual([...named].sort());
        if (groupBy === 'none') expect(keys).toEqual([null]);
        for (const group of groups) {
          const members = all.filter((incident) => keyOf[groupBy](incident) === group.key);
          if (groupBy !== 'none') expect(members.length).toBeGreaterThan(0);
          expect(groupsOf(members, 'none', serviceName)).toEqual([{ ...group, key: null }]);
        }
        expect(groups.length).toBe(groupBy === 'none' ? 1 : new Set(all.map(keyOf[groupBy])).size);
      }),
    );
  });
});
