import { randomUUID } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { TIMELINE_QUERIES, type TimelineQueries, timelineRowOf, toTimelineEventView } from '@im/read-models';
import { IncidentQueryService, principalFromClaims, TimelineAuthorizer } from '@im/access';
import { TimelineCursors } from '../apps/api/src/timeline/timeline-cursor';
import { parseIncidentTimelineQuery, parseTimelineSearch, type TimelineFilter } from '../apps/api/src/timeline/timeline-filter';
import type { TimelinePageResponse } from '../apps/api/src/timeline/timeline-page.response';
import { type TimelinePage, TimelineReader } from '../apps/api/src/timeline/timeline-reader.service';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

/**
 * A page writes the read model's stored view of every event shown unredacted
 * straight into its answer. These answers must be byte for byte what the page
 * gave when it parsed every event and serialised the answer as an object:
 * the reference here is that, computed by the same reader over rows rebuilt
 * from each parsed document (the policy's inputs and the view then come from
 * the entry, not from the store's columns).
 */
let t: TestApp;
let reference: TimelineReader;
let cursors: TimelineCursors;
// A relay: its events name other people as their actors.
const writer = bearer(token({ sub: 'writer', roles: ['timeline.writer', 'timeline.relay'] }));
const correlation = `pages-${randomUUID()}`;
let open: string;
let withheld: string;

const event = (incidentId: string | undefined, fields: Record<string, unknown>) => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'im://pages-test',
  type: 'im.incident.note',
  time: '2026-11-22T10:00:00Z',
  ...(incidentId ? { subject: `incident/${incidentId}` } : {}),
  ...fields,
});

const append = (body: unknown, contentType = 'application/cloudevents+json') =>
  t.http().post('/api/v1/timeline/events').set({ ...writer, 'content-type': contentType }).send(JSON.stringify(body));

const VISIBILITIES = [undefined, 'public', 'internal', 'restricted', 'confidential'];
const CLASSES = [undefined, ['pii'], ['phi', 'legal_hold'], []];
/** Data that JSON.stringify writes in its own way: escapes, non-ASCII, number forms, nesting, a title that is not a string. */
const DATA = [
  undefined,
  { content: 'plain' },
  { title: 'Titled "quoted" \\ back', description: 'line\nbreak\u2028sep', host: 'é-ü-日本-😀' },
  { title: 42, message: 'number title', n: 1.5e21, z: -0, f: 0.1, big: 12345678901234567890 },
  { nested: { deep: [1, 'two', { three: null }], empty: {} }, list: [], flag: true, content: 7 },
  { title: 'Only a title' },
];

async function declare(fields: Record<string, unknown>): Promise<string> {
  const res = await append(event(undefined, { type: 'im.incident.declare', data: { title: 'Pages', severity: 'SEV-2' }, ...fields })).expect(201);
  return res.body.incident_id as string;
}

beforeAll(async () => {
  t = await startTestApp();
  cursors = t.app.get(TimelineCursors);
  const store = t.app.get<TimelineQueries>(TIMELINE_QUERIES);
  // The rows as a page read them before the store kept their columns and view: everything from the parsed document.
  const parsed: TimelineQueries = {
    findByEventId: async (id) => {
      const row = await store.findByEventId(id);
      return row && timelineRowOf(row.entry, row.position);
    },
    list: async (query) => (await store.list(query)).map((row) => timelineRowOf(row.entry, row.position)),
  };
  reference = new TimelineReader(parsed, t.app.get(TimelineAuthorizer), cursors, t.app.get(IncidentQueryService), t.app.get<EventStore>(EVENT_STORE));

  open = await declare({ 'im.correlation_key': correlation });
  withheld = await declare({ 'im.visibility': 'restricted', 'im.correlation_key': correlation });
  const batch: Record<string, unknown>[] = [];
  let minute = 0;
  for (const visibility of VISIBILITIES) {
    for (const classes of CLASSES) {
      for (const data of DATA) {
        minute += 1;
        batch.push(event(minute % 7 === 0 ? withheld : open, {
          // Several events share a time: the log position breaks the tie.
          time: `2026-11-22T11:${String(Math.floor(minute / 3) % 60).padStart(2, '0')}:00Z`,
          type: ['im.incident.note', 'im.alert.trigger', 'im.ticketing_a.sync', 'im.custom.thing'][minute % 4],
          ...(minute % 5 === 0 ? {} : { 'im.actor': `actor-${minute % 3}` }),
          ...(minute % 2 === 0 ? { 'im.correlation_key': correlation } : {}),
          ...(minute % 3 === 0 ? { 'im.fingerprint': `fp-${minute % 2}` } : {}),
          ...(visibility ? { 'im.visibility': visibility } : {}),
          ...(classes ? { 'im.data_class': classes } : {}),
          ...(data ? { data } : {}),
        }));
      }
    }
  }
  const { results } = (await append(batch, 'application/cloudevents-batch+json').expect(200)).body as { results: { status: number }[] };
  expect(results.map((r) => r.status)).toEqual(batch.map(() => 201));
}, 30_000);
afterAll(() => t.close());

const CALLERS = [
  { sub: 'full', clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] },
  { sub: 'internal-none', clearance: 'internal', data_access: [] },
  { sub: 'restricted-pii', clearance: 'restricted', data_access: ['pii'] },
  { sub: 'public-phi', clearance: 'public', data_access: ['phi', 'legal_hold'] },
];

type Request = { kind: 'timeline'; params: Record<string, string> } | { kind: 'query'; body: Record<string, unknown> };

const REQUESTS: Request[] = [
  { kind: 'timeline', params: { limit: '1000' } },
  { kind: 'timeline', params: { limit: '1000', order: 'asc' } },
  { kind: 'timeline', params: { limit: '7' } },
  { kind: 'timeline', params: { limit: '9', order: 'asc' } },
  { kind: 'timeline', params: { limit: '5', type: 'im.alert.trigger' } },
  { kind: 'timeline', params: { limit: '6', type: 'im.incident.*', order: 'asc' } },
  { kind: 'timeline', params: { limit: '4', actor: 'actor-1' } },
  { kind: 'timeline', params: { limit: '8', from: '2026-11-22T11:05:00Z', to: '2026-11-22T11:20:00Z' } },
  { kind: 'query', body: { correlation_key: correlation, limit: 6 } },
  { kind: 'query', body: { correlation_key: correlation, limit: 1000, order: 'asc' } },
  { kind: 'query', body: { fingerprint: 'fp-1', limit: 3 } },
  { kind: 'query', body: { actor: 'actor-2', limit: 5, order: 'asc' } },
];

const CURSOR = '"next_cursor":';

describe.each(CALLERS)('a timeline page for $sub', (claims) => {
  const auth = bearer(token({ ...claims, roles: ['timeline.reader'] }));
  const caller = principalFromClaims({ ...claims, roles: ['timeline.reader'] });

  it.each(REQUESTS)('is byte for byte the answer built from parsed events: %j', async (request) => {
    let cursor: string | undefined;
    let pages = 0;
    do {
      const withCursor = cursor ? { cursor } : {};
      const res =
        request.kind === 'timeline'
          ? await t.http().get(`/api/v1/incidents/${open}/timeline`).query({ ...request.params, ...withCursor }).set(auth)
          : await t.http().post('/api/v1/timeline/query').set(auth).send({ ...request.body, ...withCursor });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const filter: TimelineFilter =
        request.kind === 'timeline' ? parseIncidentTimelineQuery({ ...request.params, ...withCursor }, open) : parseTimelineSearch({ ...request.body, ...withCursor });
      const page: TimelinePage =
        request.kind === 'timeline'
          ? await reference.incidentTimeline(caller, open, filter.query, filter.cursor)
          : await reference.search(caller, filter.query, filter.cursor);
      const expected: TimelinePageResponse = { events: page.shown.map((s) => toTimelineEventView(s.entry)), next_cursor: page.nextCursor };
      // Cursors are sealed with a fresh nonce each time: both must resume after the same event; the rest of the text is compared as is.
      const sent = res.text.slice(res.text.lastIndexOf(CURSOR));
      const next = JSON.parse(sent.slice(CURSOR.length, -1)) as string | null;
      expect(next === null).toBe(expected.next_cursor === null);
      if (next !== null) expect(cursors.open(caller, filter.query, next)).toEqual(cursors.open(caller, filter.query, expected.next_cursor!));
      expect(res.text).toBe(JSON.stringify({ ...expected, next_cursor: next }));
      cursor = next ?? undefined;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(0);
  });
});

it('shows unredacted, redacted and withheld events among these pages', async () => {
  const page = async (claims: (typeof CALLERS)[number]) =>
    (await t.http().post('/api/v1/timeline/query').set(bearer(token({ ...claims, roles: ['timeline.reader'] }))).send({ correlation_key: correlation, limit: 1000 }).expect(200)).body
      .events as { incident_id: string; redacted: string[] }[];
  const full = await page(CALLERS[0]);
  const internal = await page(CALLERS[1]);
  expect(full.some((e) => e.incident_id === withheld)).toBe(true);
  expect(internal.some((e) => e.incident_id === withheld)).toBe(false);
  expect(internal.length).toBeLessThan(full.length);
  // A redacted correlation key does not match: the search shows only events it may show unredacted.
  expect(internal.every((e) => e.redacted.length === 0)).toBe(true);
  const timeline = (await t.http().get(`/api/v1/incidents/${open}/timeline?limit=1000`).set(bearer(token({ ...CALLERS[2], roles: ['timeline.reader'] }))).expect(200)).body
    .events as { redacted: string[] }[];
  expect(timeline.some((e) => e.redacted.length > 0)).toBe(true);
  expect(timeline.some((e) => e.redacted.length === 0)).toBe(true);
});
