import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { ALL_TIMELINE_ROLES, bearer, token } from './support/tokens';

jest.setTimeout(60_000);

/**
 * The response metrics (docs/api.md, "Insights: response metrics") over REST,
 * CSV and GraphQL. Record times are the ledger's wall clock, so every expected
 * time is computed from the record times the api itself shows (`created_at`
 * of each event), never from the test's clock.
 */
const ADMIN = bearer(token({ sub: 'ops-admin', roles: ['oncall.admin'] }));
/** Writes, and sees every incident (clearance confidential). */
const WRITER = bearer(token({ sub: 'alice', roles: ALL_TIMELINE_ROLES, clearance: 'confidential' }));
/** Reads the metrics, cleared to internal: the confidential incident is withheld from it. */
const READER = bearer(token({ sub: 'rita', roles: ['timeline.reader'], clearance: 'internal' }));
const NO_READER = bearer(token({ sub: 'wes', roles: ['timeline.writer'], clearance: 'confidential' }));

const CHECKOUT = 'Checkout, "EU"';
const LEGACY = 'Legacy';

let t: TestApp;
let from: string;
let to: string;
let legacyId: string;
/** The incidents made below, by the letter each test names them by. */
const ids: Record<string, string> = {};

const post = (path: string, body: object = {}, as = WRITER) => t.http().post(path).set(as).send(body);
const metrics = (query: string, as = READER) => t.http().get(`/api/v1/analytics/incidents?${query}`).set(as);
const windowQuery = (groupBy?: string) => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${groupBy ? `&group_by=${groupBy}` : ''}`;

async function graphql(query: string, variables: object = {}, as = READER) {
  const res = await t.http().post('/api/v1/graphql').set(as).send({ query, variables });
  return res.body as { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string } }[] };
}

async function declare(body: object, as = WRITER): Promise<string> {
  return (await post('/api/v1/incidents', { title: 'Down', severity: 'SEV-2', ...body }, as).expect(201)).body.id;
}

/** Declared through GraphQL, whose declaration takes `services`. */
async function declareOf(service: string, severity: string): Promise<string> {
  const res = await graphql('mutation ($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }', { input: { title: 'Down', severity, services: [service] } }, WRITER);
  expect(res.errors).toBeUndefined();
  return res.data!.declareIncident.id;
}

async function alert(fingerprint: string, service: string): Promise<string> {
  const event = {
    specversion: '1.0',
    id: randomUUID(),
    source: 'im://prometheus',
    type: 'im.alert.trigger',
    time: new Date().toISOString(),
    'im.fingerprint': fingerprint,
    data: { title: 'Error rate high', severity: 'SEV-1', service },
  };
  return (await post('/api/v1/timeline/events', event).expect((res) => expect([200, 201]).toContain(res.status))).body.incident_id;
}

const move = (id: string, to: 'ack' | 'resolve' | 'cancel' | 'escalate') => post(`/api/v1/incidents/${id}/${to}`).expect(200);

/** The record times (created_at) of an incident's events of these types, oldest first, in ms. */
async function recordTimes(id: string, ...types: string[]): Promise<number[]> {
  const events = (await t.http().get(`/api/v1/incidents/${id}/timeline?limit=200`).set(WRITER).expect(200)).body.events as { id: string; event_type: string }[];
  const times = await Promise.all(
    events.filter((e) => types.includes(e.event_type)).map(async (e) => Date.parse((await t.http().get(`/api/v1/timeline/events/${encodeURIComponent(e.id)}`).set(WRITER).expect(200)).body.created_at)),
  );
  return times.sort((a, b) => a - b);
}
const declaredAt = async (id: string) => (await recordTimes(id, 'im.incident.declare', 'im.alert.trigger'))[0];
/** Seconds from the declaration's record time to the first record time of `type`. */
const secondsTo = async (id: string, type: string) => ((await recordTimes(id, type))[0] - (await declaredAt(id))) / 1000;

/** Nearest rank over seconds, and the mean rounded to the millisecond: the definitions of docs/api.md, written out. */
function times(seconds: number[]) {
  if (seconds.length === 0) return { p50: null, p90: null, mean: null };
  const sorted = [...seconds].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.ceil((p / 100) * sorted.length) - 1];
  return { p50: rank(50), p90: rank(90), mean: Math.round((sorted.reduce((a, b) => a + b, 0) * 1000) / sorted.length) / 1000 };
}

beforeAll(async () => {
  t = await startTestApp();
  from = new Date(Date.now() - 60_000).toISOString();
  const policy = (await post('/api/v1/escalation-policies', { name: 'Checkout', steps: [{ delay_seconds: 3600, targets: [{ type: 'user', id: 'ann' }] }, { delay_seconds: 3600, targets: [{ type: 'user', id: 'bob' }] }] }, ADMIN).expect(201)).body;
  await post('/api/v1/services', { name: CHECKOUT, escalation_policy_id: policy.id }, ADMIN).expect(201);
  legacyId = (await post('/api/v1/services', { name: LEGACY }, ADMIN).expect(201)).body.id;

  // A: opened by an alert of Checkout, joined by a second; acknowledged, escalated by hand, resolved.
  ids.A = await alert('fp-a', CHECKOUT);
  expect(await alert('fp-a', CHECKOUT)).toBe(ids.A);
  await move(ids.A, 'ack');
  await move(ids.A, 'escalate');
  await move(ids.A, 'resolve');
  // B: Checkout, acknowledged only.
  ids.B = await declareOf(CHECKOUT, 'SEV_2');
  await move(ids.B, 'ack');
  // C: no service, acknowledged and resolved.
  ids.C = await declare({ severity: 'SEV-2' });
  await move(ids.C, 'ack');
  await move(ids.C, 'resolve');
  // D: acknowledged, then canceled; E: acknowledged, then a duplicate of C. Both count in their own fields only.
  ids.D = await declare({ severity: 'SEV-3' });
  await move(ids.D, 'ack');
  await move(ids.D, 'cancel');
  ids.E = await declare({ severity: 'SEV-3' });
  await move(ids.E, 'ack');
  await post(`/api/v1/incidents/${ids.E}/duplicate`, { of: ids.C }).expect(200);
  // F: confidential, withheld from the reader.
  ids.F = await declare({ severity: 'SEV-1', visibility: 'confidential' });
  await move(ids.F, 'ack');
  await move(ids.F, 'resolve');
  // G: of Legacy, resolved without an acknowledgement; Legacy is deleted since.
  ids.G = await declareOf(LEGACY, 'SEV_4');
  await move(ids.G, 'resolve');
  await t.http().delete(`/api/v1/services/${legacyId}`).set(ADMIN).expect(204);
  to = new Date(Date.now() + 60_000).toISOString();
});
afterAll(() => t.close());

describe('GET /api/v1/analytics/incidents', () => {
  it('counts the incidents the caller may see, canceled and duplicates in their own fields only, with nearest-rank times from record times', async () => {
    const res = await metrics(windowQuery()).expect(200);
    const tta = await Promise.all(['A', 'B', 'C'].map((k) => secondsTo(ids[k], 'im.incident.ack')));
    const ttr = await Promise.all(['A', 'C', 'G'].map((k) => secondsTo(ids[k], 'im.incident.resolve')));
    expect(res.body).toEqual({
      from: from,
      to: to,
      group_by: 'none',
      groups: [
        {
          key: null,
          incidents: 4,
          acknowledged: 3,
          resolved: 3,
          escalated: 1,
          canceled: 1,
          duplicates: 1,
          alerts: 2,
          time_to_acknowledge: times(tta),
          time_to_resolve: times(ttr),
        },
      ],
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // The writer, cleared to confidential, sees F too: it is in the read model, withheld from the reader alone.
    const all = (await metrics(windowQuery(), WRITER).expect(200)).body.groups[0];
    expect([all.incidents, all.acknowledged, all.resolved]).toEqual([5, 4, 4]);
  });

  it('groups by service (a deleted one under its id, none last), severity and ISO week, sorted by key', async () => {
    const service = (await metrics(windowQuery('service')).expect(200)).body;
    expect(service.group_by).toBe('service');
    const keys = service.groups.map((g: { key: string | null }) => g.key);
    expect(keys).toEqual([...[CHECKOUT, legacyId].sort(), null]);
    const byKey = (groups: { key: string | null }[], key: string | null) => groups.find((g) => g.key === key) as Record<string, unknown>;
    expect(byKey(service.groups, CHECKOUT)).toMatchObject({ incidents: 2, acknowledged: 2, resolved: 1, escalated: 1, alerts: 2, canceled: 0, duplicates: 0 });
    expect(byKey(service.groups, legacyId)).toMatchObject({ incidents: 1, acknowledged: 0, resolved: 1, time_to_acknowledge: times([]) });
    expect(byKey(service.groups, null)).toMatchObject({ incidents: 1, acknowledged: 1, resolved: 1, canceled: 1, duplicates: 1 });

    const severity = (await metrics(windowQuery('severity')).expect(200)).body.groups;
    expect(severity.map((g: { key: string; incidents: number; canceled: number; duplicates: number }) => [g.key, g.incidents, g.canceled, g.duplicates])).toEqual([
      ['SEV-1', 1, 0, 0],
      ['SEV-2', 2, 0, 0],
      ['SEV-3', 0, 1, 1],
      ['SEV-4', 1, 0, 0],
    ]);

    const weekOf = async (k: string) => DateTime.fromMillis(await declaredAt(ids[k]), { zone: 'utc' }).toFormat("kkkk-'W'WW");
    const weeks = await Promise.all(['A', 'B', 'C', 'D', 'E', 'G'].map(weekOf));
    const week = (await metrics(windowQuery('week')).expect(200)).body.groups;
    expect(week.map((g: { key: string }) => g.key)).toEqual([...new Set(weeks)].sort());
    expect(week.reduce((sum: number, g: { incidents: number }) => sum + g.incidents, 0)).toBe(4);
  });

  it('counts a declaration recorded at from, and not one recorded at to', async () => {
    const at = await declaredAt(ids.A);
    const declarations = await Promise.all(['A', 'B', 'C', 'G'].map((k) => declaredAt(ids[k])));
    const query = (a: number, b: number) => `from=${new Date(a).toISOString()}&to=${new Date(b).toISOString()}`;
    expect((await metrics(query(at, at + 1)).expect(200)).body.groups[0].incidents).toBe(declarations.filter((d) => d === at).length);
    expect((await metrics(query(at - 1000, at)).expect(200)).body.groups[0].incidents).toBe(0);
  });

  it('answers one empty group for none, and no groups otherwise, over a window without incidents', async () => {
    const empty = 'from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z';
    expect((await metrics(empty).expect(200)).body.groups).toEqual([
      { key: null, incidents: 0, acknowledged: 0, resolved: 0, escalated: 0, canceled: 0, duplicates: 0, alerts: 0, time_to_acknowledge: times([]), time_to_resolve: times([]) },
    ]);
    expect((await metrics(`${empty}&group_by=week`).expect(200)).body.groups).toEqual([]);
  });

  it('answers CSV for Accept: text/csv: the exact header, the same groups, RFC 4180 quoting, a file to download', async () => {
    const json = (await metrics(windowQuery('service')).expect(200)).body.groups;
    const res = await metrics(windowQuery('service')).set('accept', 'text/csv').expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="incident-metrics-\d{8}T\d{6}(\.\d{3})?Z-\d{8}T\d{6}(\.\d{3})?Z\.csv"$/);
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe('key,incidents,acknowledged,resolved,escalated,canceled,duplicates,alerts,tta_p50,tta_p90,tta_mean,ttr_p50,ttr_p90,ttr_mean');
    expect(lines.at(-1)).toBe('');
    const cell = (v: number | null) => (v === null ? '' : String(v));
    const row = (g: any, key: string) =>
      [key, g.incidents, g.acknowledged, g.resolved, g.escalated, g.canceled, g.duplicates, g.alerts, ...['time_to_acknowledge', 'time_to_resolve'].flatMap((f) => [g[f].p50, g[f].p90, g[f].mean].map(cell))].join(',');
    const quotedKey = (key: string | null) => (key === null ? '' : key === CHECKOUT ? '"Checkout, ""EU"""' : key);
    expect(lines.slice(1, -1)).toEqual(json.map((g: { key: string | null }) => row(g, quotedKey(g.key))));
    expect(lines.filter((line) => line.startsWith('"Checkout, ""EU""",2,2,1,1,0,0,2,'))).toHaveLength(1);
  });

  it('leaves the withheld incident out of the CSV too', async () => {
    const count = async (as: typeof READER) => Number((await metrics(windowQuery(), as).set('accept', 'text/csv').expect(200)).text.split('\r\n')[1].split(',')[1]);
    expect([await count(READER), await count(WRITER)]).toEqual([4, 5]);
  });

  it.each([
    ['from missing', `to=2026-01-02T00:00:00Z`, /^from must be an RFC 3339 timestamp/],
    ['from unreadable', `from=yesterday&to=2026-01-02T00:00:00Z`, /^from must be an RFC 3339 timestamp/],
    ['to missing', `from=2026-01-01T00:00:00Z`, /^to must be an RFC 3339 timestamp/],
    ['to given twice', `from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&to=2026-01-03T00:00:00Z`, /^to must be an RFC 3339 timestamp/],
    ['to before from', `from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`, /^to must be after from$/],
    ['a window over 366 days', `from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z`, /^from and to must be at most 366 days apart$/],
    ['an unknown group_by', `from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&group_by=month`, /^group_by must be service or severity or week or none$/],
  ])('refuses %s with 400 naming the parameter', async (_, query, message) => {
    expectError(await metrics(query), 400, message);
  });

  it('refuses a caller without timeline.reader with 403', async () => {
    expectError(await metrics(windowQuery(), NO_READER), 403);
    expectError(await metrics(windowQuery(), NO_READER).set('accept', 'text/csv'), 403);
  });
});

describe('GraphQL incidentMetrics', () => {
  const QUERY = `query ($from: DateTime!, $to: DateTime!, $groupBy: MetricsGrouping) {
    incidentMetrics(from: $from, to: $to, groupBy: $groupBy) {
      key incidents acknowledged resolved escalated canceled duplicates alerts
      timeToAcknowledge { p50 p90 mean } timeToResolve { p50 p90 mean }
    }
  }`;
  const camel = ({ time_to_acknowledge, time_to_resolve, ...counts }: Record<string, unknown>) => ({ ...counts, timeToAcknowledge: time_to_acknowledge, timeToResolve: time_to_resolve });

  it.each(['NONE', 'SERVICE', 'SEVERITY', 'WEEK'])('answers the groups of REST for %s, without the withheld incident', async (groupBy) => {
    const rest = (await metrics(windowQuery(groupBy.toLowerCase())).expect(200)).body.groups;
    const res = await graphql(QUERY, { from, to, groupBy });
    expect(res.errors).toBeUndefined();
    expect(res.data!.incidentMetrics).toEqual(rest.map(camel));
  });

  it('groups by NONE by default, and for an explicit null', async () => {
    const byDefault = await graphql(`{ incidentMetrics(from: "${from}", to: "${to}") { key incidents } }`);
    expect(byDefault.data!.incidentMetrics).toEqual([{ key: null, incidents: 4 }]);
    expect((await graphql(QUERY, { from, to, groupBy: null })).data!.incidentMetrics).toHaveLength(1);
    expect((await graphql(QUERY, { from, to }, WRITER)).data!.incidentMetrics[0].incidents).toBe(5);
  });

  it.each([
    ['to before from', { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to must be after from'],
    ['a window over 366 days', { from: '2025-01-01T00:00:00Z', to: '2026-01-03T00:00:00Z' }, 'from and to must be at most 366 days apart'],
    ['an unreadable from', { from: 'yesterday', to: '2026-01-01T00:00:00Z' }, expect.stringMatching(/^from must be an RFC 3339 timestamp/)],
  ])('refuses %s with BAD_USER_INPUT and REST’s message', async (_, window, message) => {
    const res = await graphql(QUERY, window);
    expect(res.errors).toEqual([expect.objectContaining({ message, extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
  });

  it('refuses a literal from that is not a string with BAD_USER_INPUT, not a server error', async () => {
    const res = await graphql(`{ incidentMetrics(from: 123, to: "2026-01-01T00:00:00Z") { key } }`);
    expect(res.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/^from must be an RFC 3339 timestamp/), extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
  });

  it('refuses a caller without timeline.reader with FORBIDDEN', async () => {
    const res = await graphql(QUERY, { from, to }, NO_READER);
    expect(res.errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN']);
  });
});

// Last: it adds incidents to the window. Answers are kept while nothing they depend on changes (docs/api.md).
describe('answers kept between changes', () => {
  const checkout = async (as = READER) => (await metrics(windowQuery('service'), as).expect(200)).body.groups.find((g: { key: string }) => g.key === CHECKOUT);

  it('answers anew once an incident the caller may see changes, and not for a withheld one', async () => {
    const before = await checkout();
    const writerBefore = (await metrics(windowQuery(), WRITER).expect(200)).body.groups[0].incidents;
    await declare({ severity: 'SEV-1', visibility: 'confidential' });
    expect(await checkout()).toEqual(before);
    expect((await metrics(windowQuery(), WRITER).expect(200)).body.groups[0].incidents).toBe(writerBefore + 1);
    const added = await declareOf(CHECKOUT, 'SEV_3');
    expect((await checkout()).incidents).toBe(before.incidents + 1);
    await move(added, 'ack');
    expect((await checkout()).acknowledged).toBe(before.acknowledged + 1);
  });

  it('names a service by its name now', async () => {
    const services = (await t.http().get('/api/v1/services').set(ADMIN).expect(200)).body.items as { id: string; name: string; escalation_policy_id: string | null }[];
    const service = services.find((s) => s.name === CHECKOUT)!;
    const before = await checkout();
    await t.http().put(`/api/v1/services/${service.id}`).set(ADMIN).send({ name: 'Checkout EU', escalation_policy_id: service.escalation_policy_id }).expect(200);
    const groups = (await metrics(windowQuery('service')).expect(200)).body.groups;
    expect(groups.find((g: { key: string }) => g.key === 'Checkout EU')).toEqual({ ...before, key: 'Checkout EU' });
    expect(groups.some((g: { key: string }) => g.key === CHECKOUT)).toBe(false);
  });
});
