import { DateTime } from 'luxon';
import type { IncidentFacts, MetricsGroup, MetricsGrouping, MetricsTimes } from './incident-metrics';

/**
 * What the aggregation reads of an incident: its facts with the times as
 * milliseconds, measured once when the facts are read, so that a window parses
 * no time; and flat, one object per incident, since reading 100,000 of them is
 * bound by memory more than by arithmetic.
 */
export interface MeasuredIncident extends Pick<IncidentFacts, 'id' | 'severity' | 'serviceId' | 'visibility' | 'outcome' | 'escalated' | 'alerts'> {
  /** Since the epoch, of the declaration's record time. */
  readonly declaredMs: number;
  /** The ISO week of the declaration (UTC), as `isoWeek` names it. */
  readonly week: string;
  /** From the declaration to the first acknowledgement; null: never acknowledged. */
  readonly toAcknowledgeMs: number | null;
  /** From the declaration to the first resolution; null: never resolved. */
  readonly toResolveMs: number | null;
}

export function measured({ id, declaredAt, severity, serviceId, visibility, outcome, acknowledgedAt, resolvedAt, escalated, alerts }: IncidentFacts): MeasuredIncident {
  const declaredMs = recordTimeMs(declaredAt);
  return {
    id,
    severity,
    serviceId,
    visibility,
    outcome,
    escalated,
    alerts,
    declaredMs,
    week: weekOfDay(Math.floor(declaredMs / DAY_MS)),
    toAcknowledgeMs: acknowledgedAt === null ? null : recordTimeMs(acknowledgedAt) - declaredMs,
    toResolveMs: resolvedAt === null ? null : recordTimeMs(resolvedAt) - declaredMs,
  };
}

/**
 * The response metrics of the incidents a caller may see, grouped (docs/api.md,
 * "Insights"). Canceled and duplicate incidents count in `canceled` and
 * `duplicates` only. Grouped by `none` there is always exactly one group, even
 * of no incidents; otherwise only groups with at least one incident (a
 * canceled or duplicate one too), sorted by key by code point, null last.
 *
 * `serviceName` names a service by its id. Groups are by that name: two
 * services of one name share a group, and a service it answers null for
 * (one deleted since) joins the incidents of no service, so the edge answers
 * a deleted service's id rather than null.
 */
export function metricsGroups(incidents: Iterable<MeasuredIncident>, groupBy: MetricsGrouping, serviceName: (id: string) => string | null): MetricsGroup[] {
  const keyOf = groupKey(groupBy, serviceName);
  const groups = new Map<string | null, Tally>();
  if (groupBy === 'none') groups.set(null, new Tally());
  for (const incident of incidents) {
    const key = keyOf(incident);
    let tally = groups.get(key);
    if (!tally) groups.set(key, (tally = new Tally()));
    tally.add(incident);
  }
  return [...groups].sort(([a], [b]) => compareKeys(a, b)).map(([key, tally]) => tally.group(key));
}

const DAY_MS = 86_400_000;

/** ISO weeks by UTC day since the epoch: an ISO week depends on the day alone, so luxon is asked once per day ever measured (a few thousand strings at most). */
const weeksByDay = new Map<number, string>();

function weekOfDay(day: number): string {
  let week = weeksByDay.get(day);
  if (week === undefined) weeksByDay.set(day, (week = isoWeek(new Date(day * DAY_MS).toISOString())));
  return week;
}

function groupKey(groupBy: MetricsGrouping, serviceName: (id: string) => string | null): (incident: MeasuredIncident) => string | null {
  switch (groupBy) {
    case 'service':
      return ({ serviceId }) => (serviceId === null ? null : serviceName(serviceId));
    case 'severity':
      return ({ severity }) => severity;
    case 'week':
      return ({ week }) => week;
    case 'none':
      return () => null;
  }
}

/** The ISO week (UTC) of an RFC 3339 time, with its ISO week-year: 2026-12-31 is in 2026-W53, 2027-01-01 too. */
export function isoWeek(time: string): string {
  return DateTime.fromISO(time, { zone: 'utc' }).toFormat("kkkk-'W'WW");
}

/** By code point (as the read stores sort text), which UTF-16 order is not above U+FFFF; null last. */
function compareKeys(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A surrogate (part of a code point above U+FFFF) after every other code unit, which UTF-16 puts before U+E000-U+FFFF. */
const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

class Tally {
  private incidents = 0;
  private acknowledged = 0;
  private resolved = 0;
  private escalated = 0;
  private canceled = 0;
  private duplicates = 0;
  private alerts = 0;
  private readonly toAcknowledge = new Durations();
  private readonly toResolve = new Durations();

  add({ outcome, alerts, escalated, toAcknowledgeMs, toResolveMs }: MeasuredIncident): void {
    if (outcome === 'canceled') this.canceled++;
    else if (outcome === 'duplicate') this.duplicates++;
    else {
      this.incidents++;
      this.alerts += alerts;
      if (escalated) this.escalated++;
      if (toAcknowledgeMs !== null) {
        this.acknowledged++;
        this.toAcknowledge.add(toAcknowledgeMs);
      }
      if (toResolveMs !== null) {
        this.resolved++;
        this.toResolve.add(toResolveMs);
      }
    }
  }

  group(key: string | null): MetricsGroup {
    const { incidents, acknowledged, resolved, escalated, canceled, duplicates, alerts } = this;
    return { key, incidents, acknowledged, resolved, escalated, canceled, duplicates, alerts, time_to_acknowledge: this.toAcknowledge.times(), time_to_resolve: this.toResolve.times() };
  }
}

/** Durations in milliseconds, as the record times give them, in a typed array grown by doubling: no array of numbers to copy, and less for the collector. */
class Durations {
  private values = new Float64Array(64);
  private count = 0;
  private sum = 0;

  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.count * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
    this.sum += ms;
  }

  /** p50, p90 (nearest rank) and the mean, in seconds; the mean rounded to the millisecond, as the times are. */
  times(): MetricsTimes {
    const { count } = this;
    if (count === 0) return { p50: null, p90: null, mean: null };
    // The rank ⌈p/100 · n⌉ (whole percents, so no rounding moves it), 1-based. Selecting p90 leaves every smaller value before it, so p50 is selected among those alone.
    const rank90 = Math.ceil((90 * count) / 100) - 1;
    const rank50 = Math.ceil((50 * count) / 100) - 1;
    select(this.values, rank90, 0, count - 1);
    select(this.values, rank50, 0, rank90);
    return { p50: this.values[rank50] / 1000, p90: this.values[rank90] / 1000, mean: Math.round(this.sum / count) / 1000 };
  }
}

/** Rounds of partitioning before the rest of a range is sorted instead: a bound on the time any input can take. */
const SELECT_ROUNDS = 48;

/**
 * Moves the value of rank `k` (0-based) among values[left..right] to index k,
 * with no greater value before it and no smaller one after (Hoare's selection,
 * median-of-three pivots): linear on average, where sorting 100,000 durations
 * took most of an aggregation's time.
 */
export function select(values: Float64Array, k: number, left: number, right: number): void {
  for (let round = 0; right > left; round++) {
    if (round === SELECT_ROUNDS) {
      values.subarray(left, right + 1).sort();
      return;
    }
    const middle = (left + right) >>> 1;
    const pivot = medianOfThree(values[left], values[middle], values[right]);
    let i = left;
    let j = right;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const swap = values[i];
        values[i++] = values[j];
        values[j--] = swap;
      }
    }
    // values[left..j] ≤ pivot ≤ values[i..right], and anything between equals the pivot.
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

const medianOfThree = (a: number, b: number, c: number) => Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));

/**
 * Milliseconds since the epoch of a record time. The form toISOString writes
 * (`2026-12-01T10:00:00.000Z`, years from 100) is read by hand: Date.parse
 * took most of the aggregation's time at 100,000 incidents. Any other form
 * goes to Date.parse.
 */
function recordTimeMs(time: string): number {
  const year = digits(time, 0, 4);
  if (time.length !== 24 || time.charCodeAt(23) !== 0x5a || year < 100) return Date.parse(time);
  return Date.UTC(year, digits(time, 5, 2) - 1, digits(time, 8, 2), digits(time, 11, 2), digits(time, 14, 2), digits(time, 17, 2), digits(time, 20, 3));
}

const digits = (text: string, start: number, length: number) => {
  let value = 0;
  for (let i = start; i < start + length; i++) value = value * 10 + text.charCodeAt(i) - 0x30;
  return value;
};
