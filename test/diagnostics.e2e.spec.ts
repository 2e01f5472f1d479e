import SwaggerParser from '@apidevtools/swagger-parser';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CLOUD_EVENT_SCHEMA } from '@im/cloudevents';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { OUTBOUND_STORE, type OutboundStore } from '@im/read-models';
import { Client } from 'pg';
import { startTestApp, type TestApp } from './support/app';
import { temporaryDatabase, type TemporaryDatabase } from './support/postgres-database';
import { expectError } from './support/expect-error';
import { checkpointWal } from './support/sqlite-checkpoint';
import { bearer, token } from './support/tokens';

const SECRET = { JWT_SECRET: 's'.repeat(40) };
const signed = (claims: Record<string, unknown>) => bearer(token(claims, {}, SECRET.JWT_SECRET));
/** The self-test appends a probe event: it needs timeline.writer. */
const WRITER = signed({ sub: 'ops', roles: ['timeline.writer'] });

describe('GET /api/v1/validate', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp(SECRET)));
  afterAll(() => t.close());

  it('passes every check on a healthy instance, each timed, in the documented shape', async () => {
    const res = await t.http().get('/api/v1/validate').expect(200);
    expect(res.body).toEqual({
      timestamp: expect.any(String),
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      capabilities: { database: true, timeline: true, websocket: true, sse: true, graphql: true },
      results: expect.any(Array),
      summary: { total: 17, passed: 17, failed: 0, warned: 0 },
    });
    expect(res.body.results.map((r: { component: string; check: string }) => `${r.component}.${r.check}`)).toEqual([
      'event_store.reachable',
      'event_store.writable',
      'ledger.continuity',
      'read_store.reachable',
      'projections.lag',
      'projections.faults',
      'policy.decision_point',
      'auth.jwt_configuration',
      'graphql.schema',
      'websocket.graphql_transport_ws',
      'event_store.integrity',
      'read_store.integrity',
      'storage.free_space',
      'leases.projections',
      'leases.outbound:webhook',
      'leases.outbound:notification',
      'leases.timers',
    ]);
    res.body.results.forEach((r: { status: string; duration: string; message: string }) => {
      expect(r.status).toBe('pass');
      expect(r.duration).toMatch(/^\d+\.\d{2}ms$/);
      expect(r.message).not.toBe('');
    });
  });

  it('names the process holding each lease: this embedded api, on the SQLite stores', async () => {
    const res = await t.http().get('/api/v1/validate').expect(200);
    const leases = res.body.results.filter((r: { component: string }) => r.component === 'leases');
    expect(leases).toHaveLength(4);
    for (const lease of leases) {
      expect(lease.message).toMatch(new RegExp(`^held by api pid ${process.pid} on ${hostname()} since \\S+, generation [1-9]\\d*$`));
    }
  });

  it('runs a round trip with self_test=true that leaves no trace in any view', async () => {
    const before = { incidents: (await t.http().get('/api/v1/incidents')).body, head: await t.app.get<EventStore>(EVENT_STORE).headPosition() };
    const res = await t.http().get('/api/v1/validate?self_test=true').set(WRITER).expect(200);
    const roundTrip = res.body.results.find((r: { component: string }) => r.component === 'self_test');
    expect(roundTrip).toMatchObject({ check: 'round_trip', status: 'pass', message: expect.stringMatching(/projected, read back through the policy/) });
    expect((await t.http().get('/api/v1/incidents')).body).toEqual(before.incidents);
    expect(await t.app.get<EventStore>(EVENT_STORE).headPosition()).toBe(before.head + 1n);
  });

  it('warns about the built-in development secret, without telling an operator who set it to set it', async () => {
    const dev = await startTestApp({ JWT_SECRET: DEVELOPMENT_JWT_SECRET });
    try {
      const res = await dev.http().get('/api/v1/validate').expect(200);
      expect(res.body.results.find((r: { component: string }) => r.component === 'auth')).toMatchObject({ status: 'warn', message: expect.stringMatching(/development secret, which is published in the source: set JWT_SECRET to a secret of your own/) });
      expect(res.body.summary).toMatchObject({ warned: 1, failed: 0 });
    } finally {
      await dev.close();
    }
  });

  it('runs the self-test only for timeline.writer: 401 without a token, 403 without the role, and appends nothing then', async () => {
    const head = () => t.app.get<EventStore>(EVENT_STORE).headPosition();
    const before = await head();
    expectError(await t.http().get('/api/v1/validate?self_test=true'), 401, /timeline\.writer/);
    expectError(await t.http().get('/api/v1/validate?self_test=true').set(signed({ sub: 'eve', roles: ['timeline.reader'] })), 403, /timeline\.writer/);
    expect(await head()).toBe(before);
    const report = (await t.http().get('/api/v1/validate?self_test=false').expect(200)).body;
    expect(report.results.map((r: { component: string }) => r.component)).not.toContain('self_test');
  });

  it('refuses a self_test that is neither true nor false', async () => {
    expectError(await t.http().get('/api/v1/validate?self_test=yes'), 400, /self_test/);
  });
});

describe('validate names the broken component', () => {
  it('reports the policy decision point when OPA cannot be reached', async () => {
    const t = await startTestApp({ ...SECRET, POLICY_MODE: 'opa', OPA_URL: 'http://127.0.0.1:9', OPA_TIMEOUT_MS: '200' });
    try {
      const res = await t.http().get('/api/v1/validate').expect(200);
      const failed = res.body.results.filter((r: { status: string }) => r.status === 'fail');
      expect(failed).toEqual([expect.objectContaining({ component: 'policy', check: 'decision_point', message: expect.stringMatching(/OPA is unavailable: cannot connect/) })]);
      expect(res.text).not.toContain('127.0.0.1:9');
      expect(res.body.summary.failed).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('reports the event store when it cannot be used', async () => {
    const t = await startTestApp(SECRET);
    try {
      await t.app.get<EventStore>(EVENT_STORE).close();
      const res = await t.http().get('/api/v1/validate?self_test=true').set(WRITER).expect(200);
      const failed = res.body.results.filter((r: { status: string }) => r.status === 'fail').map((r: { component: string; check: string }) => `${r.component}.${r.check}`);
      expect(failed).toEqual(expect.arrayContaining(['event_store.reachable', 'event_store.writable', 'self_test.round_trip']));
      expect(failed.every((name: string) => name.startsWith('event_store') || name.startsWith('self_test') || name === 'projections.lag')).toBe(true);
      expect(res.body.capabilities.database).toBe(false);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});

describe('validate on PostgreSQL', () => {
  let database: TemporaryDatabase;
  let t: TestApp;
  const check = (report: { results: { component: string; check: string }[] }, name: string) => report.results.find((r) => `${r.component}.${r.check}` === name);
  beforeAll(async () => {
    database = await temporaryDatabase('validate');
    t = await startTestApp({ ...SECRET, EVENT_STORE: 'postgres', READ_STORE: 'postgres', POSTGRES_URL: database.url });
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('reports the database reached and its migrations current instead of the SQLite files, then each lease', async () => {
    const report = (await t.http().get('/api/v1/validate').expect(200)).body;
    expect(report.summary).toEqual({ total: 16, passed: 16, failed: 0, warned: 0 });
    expect(report.results.map((r: { component: string; check: string }) => `${r.component}.${r.check}`).slice(10)).toEqual([
      'database.reachable',
      'database.migrations',
      'leases.projections',
      'leases.outbound:webhook',
      'leases.outbound:notification',
      'leases.timers',
    ]);
    // Both stores share POSTGRES_URL's database: one server named.
    expect(check(report, 'database.reachable')).toMatchObject({ status: 'pass', message: `PostgreSQL ${await serverVersion(database.url)}, database ${database.name} answers (event_store, read_store)` });
    expect(check(report, 'database.migrations')).toMatchObject({ status: 'pass', message: expect.stringMatching(/^migrations current: event_store at 1 of 1, read_store at (\d+) of \1$/) });
    expect(check(report, 'leases.projections')).toMatchObject({ status: 'pass', message: expect.stringMatching(new RegExp(`^held by api pid ${process.pid} on `)) });
  });

  it('fails the migrations when the database lacks one this version knows, and warns of one only a newer version knows', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const [removed] = (await client.query(`DELETE FROM schema_migrations WHERE component = 'read_store' AND version = 1 RETURNING version, name`)).rows;
      let report = (await t.http().get('/api/v1/validate').expect(200)).body;
      expect(check(report, 'database.migrations')).toMatchObject({ status: 'fail', message: expect.stringContaining(`read_store lacks 1 (${removed.name}): schema_migrations does not record them`) });
      expect(report.capabilities.database).toBe(false);

      await client.query('INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3), ($4, $5, $6)', ['read_store', 1, removed.name, 'event_store', 99, 'from a newer version']);
      report = (await t.http().get('/api/v1/validate').expect(200)).body;
      expect(check(report, 'database.migrations')).toMatchObject({ status: 'warn', message: expect.stringMatching(/event_store also has 99, which this version does not know: a newer version migrated the database/) });
      expect(report.capabilities.database).toBe(true);
    } finally {
      await client.end();
    }
  });
});

async function serverVersion(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await client.end();
  }
}

describe('POST /api/v1/simulate', () => {
  let t: TestApp;
  let incidentId: string;
  beforeAll(async () => {
    t = await startTestApp(SECRET);
    incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Existing', severity: 'SEV-2' }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  const fileHashes = () =>
    Object.fromEntries(
      ['events.sqlite', 'events.sqlite-wal', 'read-models.sqlite', 'read-models.sqlite-wal']
        .map((name) => join(t.config.dataDir, name))
        .filter(existsSync)
        .map((file) => [file, createHash('sha256').update(readFileSync(file)).digest('hex')]),
    );
  /**
   * The server's background checkpoint copies what the WAL holds into the
   * file whenever it runs, writes or not: emptied first, the WAL leaves it
   * nothing to copy, so only a write could change a byte.
   */
  const settledFileHashes = async () => {
    // The notification channels commit their checkpoints after the read models show a write: wait until they have passed the head.
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    const outbound = t.app.get<OutboundStore>(OUTBOUND_STORE);
    for (const channel of ['notification:email', 'notification:push']) {
      while (((await outbound.checkpoint(channel)) ?? -1n) < head) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const name of ['events.sqlite', 'read-models.sqlite']) await checkpointWal(join(t.config.dataDir, name));
    return fileHashes();
  };

  const event = (fields: Record<string, unknown>) => ({ specversion: '1.0', id: `sim-${Math.random()}`, source: 'im://sim', time: '2026-11-22T10:00:00Z', ...fields });

  it('reports what each event would do, errors by index, and leaves the store byte-identical', async () => {
    await t.http().post(`/api/v1/incidents/${incidentId}/ack`).expect(200);
    const before = await settledFileHashes();
    const events: Record<string, unknown>[] = [
      event({ id: 'legacy-1', type: 'incident.trigger', data: { title: 'From a legacy sender', severity: 'SEV-2' } }),
      event({ type: 'im.incident.note', subject: `incident/${incidentId}`, data: { content: 'would be noted' } }),
      event({ type: 'im.incident.close', subject: `incident/${incidentId}` }),
      { specversion: '1.0', type: 'not-im' },
      event({ type: 'im.alert.trigger', 'im.fingerprint': 'sim-fp' }),
      event({ type: 'im.alert.trigger', 'im.fingerprint': 'sim-fp' }),
      event({ type: 'im.incident.note', subject: 'incident/INC-00000000' }),
    ];
    const res = await t.http().post('/api/v1/simulate').send({ events, dry_run: true }).expect(200);
    expect(res.body).toMatchObject({ dry_run: true, events_read: 7, timestamp: expect.any(String) });
    const created = res.body.events_created;
    expect(created[0]).toEqual({ id: 'legacy-1', type: 'incident.declared', source: 'im://sim', subject: expect.stringMatching(/^incident\/INC-[0-9a-f]{8}$/), time: '2026-11-22T10:00:00Z', would_create: 'incident' });
    expect(created[1]).toMatchObject({ type: 'im.incident.note', subject: `incident/${incidentId}`, would_create: 'timeline_event' });
    expect(created[2]).toMatchObject({ type: 'im.alert.trigger', would_create: 'incident' });
    expect(created[3]).toMatchObject({ type: 'im.alert.trigger', would_create: 'timeline_event', subject: created[2].subject });
    expect(res.body.errors).toEqual([
      { index: 2, id: events[2].id, error: expect.stringMatching(/Cannot close .* it is acknowledged/) },
      { index: 3, error: expect.stringMatching(/^Invalid CloudEvent/) },
      { index: 6, id: events[6].id, error: 'Incident INC-00000000 not found' },
    ]);
    expect(fileHashes()).toEqual(before);
    expect((await t.http().get('/api/v1/incidents')).body).toHaveLength(1);
  });

  const append = (stored: object) =>
    t.http().post('/api/v1/timeline/events').set({ ...signed({}), 'content-type': 'application/cloudevents+json' }).send(JSON.stringify(stored)).expect(201);
  const READER = signed({ sub: 'rita', roles: ['timeline.reader'], clearance: 'internal', data_access: [] });

  it('reports a stored event as a duplicate that would create nothing, to a caller who may read it', async () => {
    const stored = { specversion: '1.0', id: 'dup-1', source: 'im://sim', type: 'im.incident.note', time: '2026-11-22T10:00:00Z', subject: `incident/${incidentId}` };
    await append(stored);
    const res = await t.http().post('/api/v1/simulate').set(READER).send({ events: [stored] }).expect(200);
    expect(res.body.events_created).toEqual([expect.objectContaining({ id: 'dup-1', subject: `incident/${incidentId}`, would_create: 'nothing' })]);
  });

  it('reveals no stored event, fingerprint binding or withheld incident the caller could not read', async () => {
    const fingerprint = `secret-fp-${Math.random()}`;
    const alert = event({ id: 'fp-alert', type: 'im.alert.trigger', 'im.fingerprint': fingerprint, 'im.origin_id': 'origin-7', 'im.visibility': 'restricted', data: { title: 'Bound' } });
    const bound = (await append(alert)).body.incident_id;
    const confidential = event({ id: 'conf-1', type: 'im.incident.note', subject: `incident/${incidentId}`, 'im.origin_id': 'origin-8', 'im.visibility': 'confidential' });
    await append(confidential);
    const hidden = (await t.http().post('/api/v1/graphql').set(signed({ sub: 'cia', roles: ['timeline.writer'], clearance: 'confidential' }))
      .send({ query: 'mutation { declareIncident(input: { title: "Hidden", severity: SEV_1, visibility: "confidential" }) { id } }' })).body.data.declareIncident.id;
    const probes = [
      { ...alert, id: 'probe-origin' },
      event({ type: 'im.alert.trigger', 'im.fingerprint': fingerprint }),
      event({ type: 'im.alert.resolve', 'im.fingerprint': fingerprint }),
      { ...confidential, id: 'probe-conf' },
      event({ type: 'im.incident.close', subject: `incident/${hidden}` }),
    ];
    const simulate = async (headers: Record<string, string>) => (await t.http().post('/api/v1/simulate').set(headers).send({ events: probes }).expect(200)).body;

    // Anonymous (development) and a reader cleared below the stored data: as if nothing of it were stored.
    for (const headers of [{}, READER]) {
      const report = await simulate(headers);
      expect(report.events_created.map((e: { would_create: string }) => e.would_create)).toEqual(['incident', 'timeline_event', 'timeline_event', 'timeline_event']);
      expect(JSON.stringify(report)).not.toContain(bound);
      expect(report.errors).toEqual([{ index: 4, id: probes[4].id, error: `Incident ${hidden} not found` }]);
    }
    // A reader who may see all of it gets the real answers.
    const cleared = await simulate(signed({ sub: 'cia', roles: ['timeline.reader'], clearance: 'confidential' }));
    expect(cleared.events_created.map((e: { would_create: string; subject: string }) => [e.would_create, e.subject])).toEqual([
      ['nothing', `incident/${bound}`],
      ['timeline_event', `incident/${bound}`],
      ['timeline_event', `incident/${bound}`],
      ['nothing', `incident/${incidentId}`],
    ]);
    expect(cleared.errors).toEqual([{ index: 4, id: probes[4].id, error: expect.stringMatching(/Cannot close .* it is open/) }]);
  });

  it('answers a reader 503 with the PDP down whatever is stored, and a caller without the role as before', async () => {
    const down = await startTestApp({ ...SECRET, POLICY_MODE: 'opa', OPA_URL: 'http://127.0.0.1:9', OPA_TIMEOUT_MS: '200' });
    try {
      const probe = { events: [event({ type: 'im.alert.trigger', 'im.fingerprint': 'never-stored' })] };
      expectError(await down.http().post('/api/v1/simulate').set(READER).send(probe), 503);
      expect((await down.http().post('/api/v1/simulate').send(probe).expect(200)).body.events_created).toHaveLength(1);
    } finally {
      await down.close();
    }
  });

  it.each([
    [{}, /events must be an array/],
    [{ events: 'x' }, /events must be an array/],
    [{ events: [], dry_run: 'yes' }, /dry_run/],
    [[1], /JSON object/],
  ])('refuses a malformed request %j with 400', async (body, message) => {
    expectError(await t.http().post('/api/v1/simulate').send(body as object), 400, message);
  });
});

describe('schemas and the OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp(SECRET)));
  afterAll(() => t.close());

  it('serves the exact schema the append validator uses', async () => {
    expect((await t.http().get('/api/v1/schema?type=event&format=jsonschema').expect(200)).body).toEqual(CLOUD_EVENT_SCHEMA);
  });

  it.each([
    ['incident', ['Incident', 'CreateIncident']],
    ['event', ['CloudEvent']],
    ['config', ['Config']],
  ])('serves %s schemas as OpenAPI 3.0 components that validate', async (type, names) => {
    const doc = (await t.http().get(`/api/v1/schema?type=${type}`).expect(200)).body;
    expect(Object.keys(doc.components.schemas)).toEqual(names);
    await SwaggerParser.validate(structuredClone(doc));
  });

  it.each(['?type=pager', '?format=yaml', '?type=event&format=graphql'])('refuses %s with 400', async (query) => {
    expectError(await t.http().get(`/api/v1/schema${query}`), 400);
  });

  it('serves an OpenAPI 3.0 document that passes a validator and covers every REST path', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
    expect(doc.openapi).toMatch(/^3\.0\./);
    await SwaggerParser.validate(structuredClone(doc));
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods as object).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        'GET /health',
        'POST /api/v1/incidents',
        'GET /api/v1/incidents',
        'GET /api/v1/incidents/{id}',
        'POST /api/v1/incidents/{id}/ack',
        'POST /api/v1/incidents/{id}/mitigate',
        'POST /api/v1/incidents/{id}/resolve',
        'POST /api/v1/incidents/{id}/close',
        'POST /api/v1/timeline/events',
        'GET /api/v1/timeline/events/{eventId}',
        'GET /api/v1/incidents/{id}/timeline',
        'POST /api/v1/timeline/query',
        'GET /api/v1/incidents/{id}/timeline/export',
        'GET /api/v1/validate',
        'POST /api/v1/simulate',
        'GET /api/v1/schema',
        'GET /api/v1/openapi.json',
      ]),
    );
    expect(doc.paths['/api/v1/incidents'].post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Incident' });
    expect(doc.paths['/api/v1/timeline/events'].post.responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
  });

  it('matches what the server answers: documented statuses and bodies for real requests', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json')).body;
    const created = await t.http().post('/api/v1/incidents').send({ title: 'Doc check', severity: 'SEV-3' });
    const checks: [string, string, number][] = [
      ['post', '/api/v1/incidents', created.status],
      ['get', '/api/v1/incidents', (await t.http().get('/api/v1/incidents')).status],
      ['get', '/api/v1/incidents/{id}', (await t.http().get('/api/v1/incidents/INC-00000000')).status],
      ['post', '/api/v1/incidents/{id}/close', (await t.http().post(`/api/v1/incidents/${created.body.id}/close`)).status],
      ['post', '/api/v1/incidents/{id}/ack', (await t.http().post(`/api/v1/incidents/${created.body.id}/ack`)).status],
      ['get', '/api/v1/incidents/{id}/timeline', (await t.http().get(`/api/v1/incidents/${created.body.id}/timeline`)).status],
      ['get', '/api/v1/schema', (await t.http().get('/api/v1/schema?type=nope')).status],
    ];
    for (const [method, path, status] of checks) expect([method, path, Object.keys(doc.paths[path][method].responses)]).toEqual([method, path, expect.arrayContaining([String(status)])]);
    const schemas = doc.components.schemas;
    const incident = created.body;
    expect(Object.keys(incident).every((key) => key in schemas.Incident.properties)).toBe(true);
    expect(schemas.Incident.required.every((key: string) => key in incident)).toBe(true);
  });

  it('serves Swagger UI in development mode', async () => {
    expect((await t.http().get('/api/v1/docs').expect(200)).text).toContain('/api/v1/openapi.json');
    const asset = await t.http().get('/api/v1/docs/swagger-ui-bundle.js').expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
  });
});

describe('paths that answer 404', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp({ ...SECRET, APP_ENV: 'production' })));
  afterAll(() => t.close());

  it.each([
    '/api/v1/realtime/stats',
    '/api/v1/correlation/groups',
    '/api/v1/correlation/stats',
    '/api/v1/sla/status/INC-00000000',
    '/api/v1/sla/metrics',
    '/api/v1/metrics/incidents',
    '/api/v1/metrics/teams',
    '/api/v1/metrics/services/checkout/reliability',
    '/api/v1/connectors',
    '/api/v1/no-such-thing',
    '/api/v1/docs',
    '/graphql/playground',
  ])('%s answers 404 with the error body (production mode, no token)', async (path) => {
    expectError(await t.http().get(path), 404);
  });
});
