import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

const AUTH = bearer(token({ sub: 'alice' }));
const CE = 'application/cloudevents+json';

let t: TestApp;
let store: EventStore;
beforeAll(async () => {
  t = await startTestApp();
  store = t.app.get<EventStore>(EVENT_STORE);
});
afterAll(() => t.close());

type Event = Record<string, unknown>;
const event = (fields: Event = {}): Event => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'im://prometheus',
  type: 'im.incident.note',
  time: '2026-11-22T10:00:00Z',
  ...fields,
});

const append = (body: Event | string, app: TestApp = t) =>
  app
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...AUTH, 'content-type': CE })
    .send(typeof body === 'string' ? body : JSON.stringify(body));

async function declare(fields: Event = {}): Promise<string> {
  const res = await append(event({ type: 'im.incident.declare', data: { title: 'Checkout is down', severity: 'SEV-1' }, ...fields }));
  expect(res.status).toBe(201);
  return res.body.incident_id;
}

const timeline = (incidentId: string, query = '') =>
  t.http().get(`/api/v1/incidents/${incidentId}/timeline${query}`).set(AUTH);
const incident = async (id: string) => (await t.http().get(`/api/v1/incidents/${id}`).expect(200)).body;


describe('POST /api/v1/timeline/events', () => {
  it('stores a new event: 201 {event_id, created: true, incident_id}', async () => {
    const incidentId = await declare();
    const note = event({ subject: `incident/${incidentId}`, data: { content: 'Rolled back' } });
    const res = await append(note);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ event_id: note.id, created: true, incident_id: incidentId });
  });

  it('declares an incident without subject from data.title and data.severity', async () => {
    const id = await declare({ data: { title: 'Payments slow', severity: 'SEV-2', description: 'p99 4 s' } });
    expect(await incident(id)).toMatchObject({ id, title: 'Payments slow', severity: 'SEV-2', status: 'open', description: 'p99 4 s' });
  });

  it('declares an incident with the id its subject names', async () => {
    const id = `INC-${randomUUID().slice(0, 8)}`;
    expect(await declare({ subject: `incident/${id}` })).toBe(id);
    expect((await incident(id)).status).toBe('open');
    expectError(await append(event({ type: 'im.incident.declare', subject: `incident/${id}`, data: { title: 'again', severity: 'SEV-1' } })), 409, /already exists/);
  });

  it.each([
    ['a declare without a title', { type: 'im.incident.declare', data: { severity: 'SEV-1' } }, /title/],
    ['a declare with an unknown severity', { type: 'im.incident.declare', data: { title: 'x', severity: 'SEV-7' } }, /severity/],
    ['a note without subject', { type: 'im.incident.note' }, /subject .* is required for im.incident.note/],
    ['an alert resolve with neither subject nor fingerprint', { type: 'im.alert.resolve' }, /subject or im.fingerprint/],
    ['a declare whose subject is no incident id', { type: 'im.incident.declare', subject: 'incident/db-1', data: { title: 'x', severity: 'SEV-1' } }, /INC-/],
    ['an invalid CloudEvent', { specversion: '2.0', type: 'alert' }, /specversion must be "1.0"; type must start with "im."/],
  ])('refuses %s with 400, storing nothing', async (_, fields, message) => {
    const head = await store.headPosition();
    expectError(await append(event(fields)), 400, message);
    expect(await store.headPosition()).toBe(head);
  });

  it('answers 404 for an event whose subject names an unknown incident', async () => {
    const head = await store.headPosition();
    expectError(await append(event({ subject: 'incident/INC-00000000' })), 404, /Incident INC-00000000 not found/);
    expect(await store.headPosition()).toBe(head);
  });

  it('refuses malformed JSON, a non-object body and a wrong media type', async () => {
    expectError(await append('{"specversion": '), 400, 'The body is not valid JSON');
    // Valid JSON, refused for its member: the answer says so, not that the JSON is invalid.
    expectError(await append('{"specversion":"1.0","id":"p","source":"s","type":"im.incident.note","data":{"__proto__":{"x":1}}}'), 400, /member named __proto__/);
    expectError(await append('[]'), 400, /one CloudEvent as a JSON object/);
    const res = await t.http().post('/api/v1/timeline/events').set({ ...AUTH, 'content-type': 'text/plain' }).send('hello');
    expectError(res, 415);
  });

  it('accepts events up to 64 KiB, refuses larger ones and bodies over 1 MiB with 413', async () => {
    const id = await declare();
    const fits = await append(event({ subject: `incident/${id}`, data: { content: 'x'.repeat(60_000) } }));
    expect(fits.status).toBe(201);
    expectError(await append(event({ subject: `incident/${id}`, data: { content: 'x'.repeat(70_000) } })), 413, /64 KiB/);
    expectError(await append(event({ subject: `incident/${id}`, data: { content: 'x'.repeat(1_100_000) } })), 413);
  });
});

describe('idempotency', () => {
  it('answers a repeat of (source, im.origin_id) with 200 and the stored ids, whatever the new body says', async () => {
    const id = await declare();
    const first = await append(event({ subject: `incident/${id}`, 'im.origin_id': 'ticket-7' }));
    const other = await declare();
    const again = await append(event({ subject: `incident/${other}`, 'im.origin_id': 'ticket-7', data: { content: 'changed' } }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ event_id: first.body.event_id, created: false, incident_id: id });
    const notes = (await store.readStream(`incident-${other}`)).filter((r) => r.event.type === 'im.incident.note');
    expect(notes).toHaveLength(0);
  });

  it('treats the same origin id from another source as a new event', async () => {
    const id = await declare();
    const a = await append(event({ subject: `incident/${id}`, 'im.origin_id': 'shared-key' }));
    const b = await append(event({ subject: `incident/${id}`, source: 'im://jira', 'im.origin_id': 'shared-key' }));
    expect([a.status, b.status]).toEqual([201, 201]);
  });

  it('treats a repeated (source, id) as a duplicate even without an origin id', async () => {
    const id = await declare();
    const e = event({ subject: `incident/${id}` });
    expect((await append(e)).status).toBe(201);
    const again = await append(e);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ event_id: e.id, created: false, incident_id: id });
    expect((await append(event({ subject: `incident/${id}` }))).status).toBe(201);
  });

  it('answers with the event whose (source, id) matches when its origin id matches another stored event', async () => {
    const id = await declare();
    const byId = event({ subject: `incident/${id}`, 'im.origin_id': `first-${randomUUID()}` });
    const byOrigin = event({ subject: `incident/${id}`, 'im.origin_id': `second-${randomUUID()}` });
    expect((await append(byId)).status).toBe(201);
    expect((await append(byOrigin)).status).toBe(201);
    const both = await append({ ...byId, 'im.origin_id': byOrigin['im.origin_id'] });
    expect(both.status).toBe(200);
    expect(both.body).toEqual({ event_id: byId.id, created: false, incident_id: id });
  });

  it('stores exactly one event when 30 identical appends race', async () => {
    const id = await declare();
    const e = event({ subject: `incident/${id}`, 'im.origin_id': `race-${randomUUID()}` });
    const answers = await Promise.all(Array.from({ length: 30 }, () => append(e)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(29);
    answers.forEach((a) => expect(a.body).toMatchObject({ event_id: e.id, incident_id: id }));
    const stored = (await store.readStream(`incident-${id}`)).filter((r) => r.event.id === e.id);
    expect(stored).toHaveLength(1);
  });

  it('still knows its duplicates after a restart', async () => {
    const dir = tempDir('restart');
    const first = await startTestApp({}, dir.path);
    const e = event({ type: 'im.incident.declare', 'im.origin_id': 'survives', data: { title: 'x', severity: 'SEV-4' } });
    const created = await append(e, first);
    await first.close();
    const second = await startTestApp({}, dir.path);
    try {
      const again = await append(e, second);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...created.body, created: false });
    } finally {
      await second.close();
      dir.remove();
    }
  });
});

describe('alerts grouped by fingerprint', () => {
  const trigger = (fingerprint: string, fields: Event = {}) =>
    append(event({ type: 'im.alert.trigger', 'im.fingerprint': fingerprint, ...fields }));

  it('opens an incident from the first alert (severity SEV-3 unless given) and joins later ones to it', async () => {
    const fp = `disk-${randomUUID()}`;
    const first = await trigger(fp, { data: { title: 'Disk 91% full' } });
    const second = await trigger(fp);
    expect(first.status).toBe(201);
    expect(second.body.incident_id).toBe(first.body.incident_id);
    expect(await incident(first.body.incident_id)).toMatchObject({ title: 'Disk 91% full', severity: 'SEV-3', status: 'open' });
  });

  it('joins one incident when an alert storm arrives all at once', async () => {
    const fp = `storm-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 25 }, () => trigger(fp)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((a) => a.body.incident_id)).size).toBe(1);
  });

  it('opens a new incident once the previous one is resolved', async () => {
    const fp = `cpu-${randomUUID()}`;
    const first = (await trigger(fp)).body.incident_id;
    await t.http().post(`/api/v1/incidents/${first}/resolve`).expect(200);
    const next = (await trigger(fp, { data: { severity: 'SEV-1' } })).body.incident_id;
    expect(next).not.toBe(first);
    expect((await incident(next)).severity).toBe('SEV-1');
  });

  it('attaches an alert resolve to the incident its fingerprint joined, and 404s an unknown fingerprint', async () => {
    const fp = `mem-${randomUUID()}`;
    const opened = (await trigger(fp)).body.incident_id;
    const resolved = await append(event({ type: 'im.alert.resolve', 'im.fingerprint': fp }));
    expect(resolved.body).toMatchObject({ created: true, incident_id: opened });
    expect((await incident(opened)).status).toBe('open');
    expectError(await append(event({ type: 'im.alert.resolve', 'im.fingerprint': `never-${randomUUID()}` })), 404, /fingerprint/);
  });

  it('opens a new incident per alert that has no fingerprint', async () => {
    const a = (await append(event({ type: 'im.alert.trigger' }))).body.incident_id;
    const b = (await append(event({ type: 'im.alert.trigger' }))).body.incident_id;
    expect(a).not.toBe(b);
    expect((await incident(a)).title).toBe('Alert');
  });
});

describe('lifecycle events on the timeline', () => {
  const lifecycle = (id: string, move: string) => append(event({ type: `im.incident.${move}`, subject: `incident/${id}` }));

  it('moves the incident exactly as the REST call would', async () => {
    const id = await declare();
    expect((await lifecycle(id, 'ack')).status).toBe(201);
    expect((await incident(id)).status).toBe('acknowledged');
    expect((await lifecycle(id, 'mitigate')).status).toBe(201);
    expect((await t.http().post(`/api/v1/incidents/${id}/resolve`).expect(200)).body).toEqual({ status: 'resolved' });
    expect((await lifecycle(id, 'close')).status).toBe(201);
    expect((await incident(id)).status).toBe('closed');
  });

  it('refuses a move the table forbids with 409 and stores nothing', async () => {
    const id = await declare();
    const head = await store.headPosition();
    expectError(await lifecycle(id, 'mitigate'), 409, /it is open/);
    expectError(await lifecycle(id, 'close'), 409, /it is open/);
    expect(await store.headPosition()).toBe(head);
  });

  it('stores a repeat as a timeline event that changes nothing', async () => {
    const id = await declare();
    await lifecycle(id, 'ack');
    const before = await incident(id);
    expect((await lifecycle(id, 'ack')).status).toBe(201);
    expect(await incident(id)).toEqual(before);
    const types = (await timeline(id, '?order=asc').expect(200)).body.events.map((e: Event) => e.event_type);
    expect(types).toEqual(['im.incident.declare', 'im.incident.ack', 'im.incident.ack']);
  });
});

describe('reading the timeline', () => {
  let id: string;
  const ids: string[] = [];
  const at = (minute: number) => `2026-11-22T10:${String(minute).padStart(2, '0')}:00Z`;

  beforeAll(async () => {
    id = await declare({ time: at(0), 'im.actor': 'alice', data: { title: 'DB failover', severity: 'SEV-1' } });
    for (let minute = 1; minute <= 7; minute++) {
      const e = event({
        subject: `incident/${id}`,
        type: minute % 2 ? 'im.incident.note' : 'im.paging.escalate',
        time: at(minute),
        'im.actor': minute % 3 ? 'bob' : 'carol',
        'im.correlation_key': `corr-${id}`,
        data: { title: `step ${minute}`, content: `text ${minute}`, service: 'db' },
      });
      await append(e);
      ids.push(e.id as string);
    }
  });

  it('reads one event with created_at, the data title lifted out', async () => {
    const res = await t.http().get(`/api/v1/timeline/events/${ids[0]}`).set(AUTH).expect(200);
    expect(res.body).toEqual({
      id: ids[0],
      incident_id: id,
      event_time: '2026-11-22T10:01:00.000Z',
      event_type: 'im.incident.note',
      actor: 'bob',
      // The default test token is a relay: it may name bob; the sender is who sent it.
      sender: 'alice',
      title: 'step 1',
      content: 'text 1',
      source: 'im://prometheus',
      data: { content: 'text 1', service: 'db' },
      redacted: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/),
    });
    expectError(await t.http().get('/api/v1/timeline/events/nope').set(AUTH), 404, /Timeline event nope not found/);
  });

  it('lists newest first by default with next_cursor null when everything fits', async () => {
    const res = await timeline(id).expect(200);
    expect(res.body.events).toHaveLength(8);
    expect(res.body.events[0].id).toBe(ids[6]);
    expect(res.body.events[0]).not.toHaveProperty('created_at');
    expect(res.body.next_cursor).toBeNull();
  });

  it('filters by type (exact and wildcard), actor and time range', async () => {
    const types = async (q: string) => (await timeline(id, q).expect(200)).body.events.map((e: Event) => e.title);
    expect(await types('?type=im.paging.escalate&order=asc')).toEqual(['step 2', 'step 4', 'step 6']);
    expect(await types('?type=im.incident.*&order=asc')).toEqual(['DB failover', 'step 1', 'step 3', 'step 5', 'step 7']);
    expect(await types('?actor=carol&order=asc')).toEqual(['step 3', 'step 6']);
    expect(await types(`?from=${at(2)}&to=2026-11-22T12:04:00%2B02:00&order=asc`)).toEqual(['step 2', 'step 3', 'step 4']);
  });

  it('pages with next_cursor in either order until it is null', async () => {
    for (const order of ['asc', 'desc']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `?order=${order}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await timeline(id, query).expect(200);
        seen.push(...res.body.events.map((e: Event) => e.id));
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      const all = (await timeline(id, `?order=${order}`)).body.events.map((e: Event) => e.id);
      expect(seen).toEqual(all);
    }
  });

  it.each([
    ['?limit=0', /limit/],
    ['?limit=1001', /limit/],
    ['?order=newest', /order/],
    ['?from=yesterday', /from/],
    [`?from=${'2026-11-22T11:00:00Z'}&to=${'2026-11-22T10:00:00Z'}`, /from must not be after to/],
    ['?type=alert*', /type/],
    ['?type=im.*.ack', /type/],
    ['?cursor=garbage', /cursor/],
  ])('refuses %s with 400', async (query, message) => {
    expectError(await timeline(id, query), 400, message);
  });

  it('refuses a cursor from another query', async () => {
    const cursor = (await timeline(id, '?limit=2').expect(200)).body.next_cursor;
    expectError(await timeline(id, `?limit=2&order=asc&cursor=${cursor}`), 400, /cursor/);
    const other = await declare();
    expectError(await timeline(other, `?limit=2&cursor=${cursor}`), 400, /cursor/);
  });

  it('answers 404 for the timeline of an unknown incident', async () => {
    expectError(await timeline('INC-00000000'), 404, /Incident INC-00000000 not found/);
  });

  it('shows REST operations as the CloudEvents they appended, with the caller as actor', async () => {
    const created = await t.http().post('/api/v1/incidents').set(AUTH).send({ title: 'via REST', severity: 'SEV-2' }).expect(201);
    await t.http().post(`/api/v1/incidents/${created.body.id}/ack`).expect(200);
    const events = (await timeline(created.body.id, '?order=asc').expect(200)).body.events;
    expect(events.map((e: Event) => [e.event_type, e.actor, e.source])).toEqual([
      ['im.incident.declare', 'alice', 'im://incident-service'],
      ['im.incident.ack', 'anonymous', 'im://incident-service'],
    ]);
  });
});

describe('POST /api/v1/timeline/query', () => {
  const query = (body: unknown) => t.http().post('/api/v1/timeline/query').set(AUTH).send(body as object);
  let a: string;
  let b: string;
  const key = `deploy-${randomUUID()}`;

  beforeAll(async () => {
    a = await declare({ 'im.correlation_key': key, time: '2026-11-22T09:00:00Z' });
    b = await declare({ 'im.correlation_key': key, time: '2026-11-22T09:05:00Z', 'im.fingerprint': `fp-${key}` });
    await append(event({ subject: `incident/${a}`, 'im.correlation_key': key, time: '2026-11-22T09:10:00Z' }));
  });

  it('finds events across incidents by correlation key, in the timeline response shape', async () => {
    const res = await query({ correlation_key: key, order: 'asc' }).expect(200);
    expect(res.body.events.map((e: Event) => e.incident_id)).toEqual([a, b, a]);
    expect(res.body.next_cursor).toBeNull();
  });

  it('narrows by time range, fingerprint, incident and type, and pages', async () => {
    expect((await query({ correlation_key: key, from_time: '2026-11-22T09:04:00Z', to_time: '2026-11-22T09:06:00Z' })).body.events).toHaveLength(1);
    expect((await query({ fingerprint: `fp-${key}` })).body.events.map((e: Event) => e.incident_id)).toEqual([b]);
    expect((await query({ incident_id: a, type: 'im.incident.note' })).body.events).toHaveLength(1);
    const first = (await query({ correlation_key: key, limit: 2 }).expect(200)).body;
    expect(first.events).toHaveLength(2);
    const second = (await query({ correlation_key: key, limit: 2, cursor: first.next_cursor }).expect(200)).body;
    expect(second.events).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
  });

  it.each([
    [{ from_time: '2026-11-22T09:00:00Z' }, /At least one of/],
    [{}, /At least one of/],
    [{ correlation_key: key, limit: 0 }, /limit/],
    [{ correlation_key: key, limit: '5' }, /limit/],
    [{ correlation_key: 7 }, /correlation_key/],
    [{ correlationKey: key }, /Unknown query field/],
    [[{ correlation_key: key }], /JSON object/],
  ])('refuses %j with 400', async (body, message) => {
    expectError(await query(body), 400, message);
  });
});

describe('GET /api/v1/incidents/{id}/timeline/export', () => {
  let id: string;
  beforeAll(async () => {
    id = await declare({ time: '2026-11-22T08:00:00Z', 'im.actor': 'alice', data: { title: 'Login errors', severity: 'SEV-2' } });
    await append(event({
      subject: `incident/${id}`,
      time: '2026-11-22T08:05:00Z',
      'im.actor': 'bob',
      data: { content: 'Rolled back v2.3\n## forged heading\n<script>alert(1)</script>', service: 'auth' },
    }));
  });
  const exporting = (query = '') => t.http().get(`/api/v1/incidents/${id}/timeline/export${query}`).set(AUTH);

  it('defaults to JSON: the CloudEvents as stored, oldest first', async () => {
    const res = await exporting().expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.map((e: Event) => e.type)).toEqual(['im.incident.declare', 'im.incident.note']);
    expect(res.body[0]).toMatchObject({ specversion: '1.0', subject: `incident/${id}`, 'im.actor': 'alice', data: { title: 'Login errors' } });
  });

  it('renders Markdown in the layout of docs/api.md, with event text that cannot forge structure', async () => {
    const res = await exporting('?format=markdown').expect(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const text = res.text.replace(/Generated: \S+/, 'Generated: <now>');
    // The signed head of the caller's chain, as the ledger bundle signs it (verified in ledger.e2e.spec.ts).
    const bundle = (await exporting('?format=ledger').expect(200)).body;
    const head = `Ledger head: chain confidential, n 2, hash ${bundle.head.hash}, key ${bundle.head.kid}, signed at `;
    expect(text).toBe(
      [
        `# Timeline: ${id}`,
        '',
        `Incident: ${id}`,
        '',
        'Title: Login errors',
        '',
        'Severity: SEV-2',
        '',
        'Status: open',
        '',
        'Generated: <now>',
        '',
        '---',
        '',
        '## 2026-11-22T08:00:00.000Z - im.incident.declare',
        '',
        'Actor: alice',
        '',
        'Source: im://prometheus',
        '',
        'Login errors',
        '',
        'Data:',
        '',
        '- severity: SEV-2',
        '',
        '---',
        '',
        '## 2026-11-22T08:05:00.000Z - im.incident.note',
        '',
        'Actor: bob',
        '',
        'Sent by: alice',
        '',
        'Source: im://prometheus',
        '',
        'Rolled back v2.3\n\\## forged heading\n&lt;script>alert(1)&lt;/script>',
        '',
        'Data:',
        '',
        '- content: Rolled back v2.3 \\## forged heading &lt;script>alert(1)&lt;/script>'.replace(' \\## ', ' ## '),
        '- service: auth',
        '',
        `${head}${text.match(/signed at (\S+)/)?.[1]}`,
        '',
        `Verify: save GET /api/v1/incidents/${id}/timeline/export?format=ledger as bundle.json, then run npm run verify -- bundle.json --key ${t.config.notifications.consoleUrl}/api/v1/ledger/keys`,
        '',
      ].join('\n'),
    );
  });

  it('refuses an unknown format with 400, and an unknown incident with 404', async () => {
    expectError(await exporting('?format=pdf'), 400, /format must be json or markdown/);
    expectError(await t.http().get('/api/v1/incidents/INC-00000000/timeline/export').set(AUTH), 404);
  });
});

describe('npm run token', () => {
  it('prints a development token the server accepts, with the roles asked for', async () => {
    const root = join(__dirname, '..');
    const jwt = execFileSync(
      process.execPath,
      [join(root, 'node_modules/ts-node/dist/bin.js'), '--transpile-only', '-r', 'tsconfig-paths/register', 'apps/api/src/auth/token.cli.ts', '--sub', 'dana', '--roles', 'timeline.reader', '--clearance', 'internal'],
      { cwd: root, encoding: 'utf8', env: { ...process.env, JWT_SECRET: '' } },
    ).trim();
    const id = await declare();
    await t.http().get(`/api/v1/incidents/${id}/timeline`).set(bearer(jwt)).expect(200);
    expect((await t.http().post('/api/v1/timeline/events').set(bearer(jwt)).send({})).status).toBe(403);
  }, 30_000);
});
