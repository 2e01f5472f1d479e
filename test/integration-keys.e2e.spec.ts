import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { ALL_PROJECTIONS, integrationKeyHistoryProjection, PROJECTION_WORKER, type ProjectionWorker, rebuildProjections } from '@im/read-models';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { EVENTS_FILE, READ_MODELS_FILE } from '@im/persistence';
import { INTEGRATION_KEYS_STREAM } from '@im/incidents';
import { startTestApp, type TestApp } from './support/app';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

/**
 * Integration keys as an operator uses them: an integrations admin creates a
 * key, a monitoring system appends with it, and nothing else; revoking it
 * shuts it out on the very next request; the ledger keeps who did what.
 */
const ADMIN = bearer(token({ sub: 'ops-admin', roles: ['integrations.admin'] }));
const READER = bearer(token({ sub: 'rita', roles: ['timeline.reader', 'timeline.writer'], clearance: 'confidential' }));
const KEY_FORMAT = /^imk_[0-9a-f]{16}_[0-9a-f]{64}$/;

const alert = (title = 'Disk full on db-1') => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'im://alertmanager-prod',
  type: 'im.alert.trigger',
  time: new Date().toISOString(),
  'im.actor': 'alice',
  'im.fingerprint': `fp-${randomUUID()}`,
  data: { title, severity: 'SEV-2' },
});

interface Created {
  id: string;
  name: string;
  roles: string[];
  key: string;
  created_at: string;
}

describe.each(['development', 'production'] as const)('integration keys (%s mode)', (mode) => {
  const secret = 'a-production-secret-of-at-least-32-characters';
  const sign = (claims: Record<string, unknown>) => bearer(token(claims, {}, mode === 'production' ? secret : undefined));
  const admin = () => (mode === 'production' ? sign({ sub: 'ops-admin', roles: ['integrations.admin'] }) : ADMIN);
  const reader = () => (mode === 'production' ? sign({ sub: 'rita', roles: ['timeline.reader', 'timeline.writer'], clearance: 'confidential' }) : READER);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(mode === 'production' ? { APP_ENV: 'production', JWT_SECRET: secret } : {});
  });
  afterAll(() => t.close());

  const create = async (body: object = { name: 'alertmanager-prod', roles: ['timeline.writer'] }): Promise<Created> =>
    (await t.http().post('/api/v1/integration-keys').set(admin()).send(body).expect(201)).body as Created;
  const append = (key: string, event: object = alert()) =>
    t.http().post('/api/v1/timeline/events').set({ ...bearer(key), 'content-type': 'application/cloudevents+json' }).send(JSON.stringify(event));

  it('creates a key shown once, appends with it (the actor names the key), refuses it elsewhere, revokes it for the very next request', async () => {
    const created = await create();
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f]{16}$/), name: 'alertmanager-prod', roles: ['timeline.writer'], service_id: null, key: expect.stringMatching(KEY_FORMAT), created_at: expect.any(String) });
    expect(created.key.startsWith(`imk_${created.id}_`)).toBe(true);

    const appended = await append(created.key).expect(201);
    const stored = await t.http().get(`/api/v1/timeline/events/${appended.body.event_id}`).set(reader()).expect(200);
    expect(stored.body.actor).toBe(`integration:${created.id}`);
    // The key is the event's sender too (docs/security.md, "Who wrote an event").
    expect(stored.body.sender).toBe(`integration:${created.id}`);
    // A batch is attributed to the key event by event too.
    const batch = await t.http().post('/api/v1/timeline/events').set({ ...bearer(created.key), 'content-type': 'application/cloudevents-batch+json' }).send(JSON.stringify([alert('Batched alert')])).expect(200);
    const batched = await t.http().get(`/api/v1/timeline/events/${batch.body.results[0].event_id}`).set(reader()).expect(200);
    expect(batched.body.actor).toBe(`integration:${created.id}`);
    expect(batched.body.sender).toBe(`integration:${created.id}`);

    // Accepted by the append only: every other route, GraphQL and the self-test are 403.
    const key = bearer(created.key);
    const elsewhere = [
      await t.http().get(`/api/v1/incidents/${appended.body.incident_id}`).set(key),
      await t.http().get('/api/v1/incidents').set(key),
      await t.http().get(`/api/v1/incidents/${appended.body.incident_id}/timeline`).set(key),
      await t.http().post('/api/v1/incidents').set(key).send({ title: 'x', severity: 'SEV-3' }),
      await t.http().get('/api/v1/validate?self_test=true').set(key),
      await t.http().get('/api/v1/integration-keys').set(key),
    ];
    expect(elsewhere.map((res) => [res.status, res.body])).toEqual(
      elsewhere.map(() => [403, { error: 'An integration key is accepted only by the timeline append and the integration endpoints; use a token here', status: 403 }]),
    );
    const graphql = await t.http().post('/api/v1/graphql').set(key).send({ query: '{ myIncidents { id } }' });
    expect(graphql.status).toBe(403);
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');

    // The list names the key but shows neither its secret nor its hash.
    const list = await t.http().get('/api/v1/integration-keys').set(admin()).expect(200);
    const listed = (list.body as { id: string }[]).find((k) => k.id === created.id);
    expect(listed).toEqual({ id: created.id, name: 'alertmanager-prod', roles: ['timeline.writer'], created_at: created.created_at, created_by: 'ops-admin', revoked_at: null, revoked_by: null, service_id: null });
    expect(list.text).not.toContain(created.key.slice(4 + 17));

    await t.http().delete(`/api/v1/integration-keys/${created.id}`).set(admin()).expect(204);
    const refused = await append(created.key);
    expect([refused.status, refused.body]).toEqual([401, { error: 'The integration key is not valid: unknown, revoked or mistyped', status: 401 }]);
    // Revoking again changes nothing and says so with the same 204; an unknown id is 404.
    await t.http().delete(`/api/v1/integration-keys/${created.id}`).set(admin()).expect(204);
    const unknown = await t.http().delete('/api/v1/integration-keys/0123456789abcdef').set(admin());
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'Integration key 0123456789abcdef not found', status: 404 }]);
    expect((await t.http().get('/api/v1/integration-keys').set(admin())).body.find((k: { id: string }) => k.id === created.id)).toMatchObject({
      revoked_at: expect.any(String),
      revoked_by: 'ops-admin',
    });

    // The ledger lists the create and the one revoke, without the hash, for integrations.admin only.
    const events = await t.http().get('/api/v1/integration-keys/events').set(admin()).expect(200);
    const own = (events.body as { type: string; data: { id: string }; 'im.actor': string }[]).filter((e) => e.data.id === created.id);
    expect(own.map((e) => [e.type, e['im.actor']])).toEqual([
      ['im.integration_key.created', 'ops-admin'],
      ['im.integration_key.revoked', 'ops-admin'],
    ]);
    expect(own[0].data).toEqual({ id: created.id, name: 'alertmanager-prod', roles: ['timeline.writer'] });
    expect(events.text).not.toContain(created.key.slice(4 + 17));
    expect(events.text).not.toContain('key_hash');
  });

  it('declares the key as a bearer scheme of its own, on the routes that accept it only', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json').set(admin()).expect(200)).body;
    expect(doc.components.securitySchemes.integrationKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/api/v1/timeline/events'].post.security).toEqual([{ bearer: [] }, { integrationKey: [] }]);
    expect(doc.paths['/api/v1/incidents/{id}/timeline'].get.security).toEqual([{ bearer: [] }]);
  });

  it('refuses a mistyped, unknown or forged key with the same 401', async () => {
    const created = await create();
    const [, id, secretPart] = created.key.split('_');
    const forged = [
      `imk_${id}_${secretPart.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`,
      `imk_0123456789abcdef_${secretPart}`,
      `imk_${id}`,
      'imk_',
    ];
    for (const key of forged) {
      const res = await append(key);
      expect([key, res.status, res.body.error]).toEqual([key, 401, 'The integration key is not valid: unknown, revoked or mistyped']);
    }
    await append(created.key).expect(201);
  });

  it.each([
    [{ name: 'grafana', roles: ['timeline.reader'] }],
    [{ name: 'grafana', roles: ['timeline.writer', 'integrations.admin'] }],
    [{ name: 'grafana', roles: [] }],
  ])('answers 400 to roles other than timeline.writer: %j', async (body) => {
    const res = await t.http().post('/api/v1/integration-keys').set(admin()).send(body);
    expect([res.status, res.body]).toEqual([400, { error: 'roles must list roles among timeline.writer: an integration key only writes to the timeline', status: 400 }]);
  });

  it('answers 400 to a missing or empty name', async () => {
    expect((await t.http().post('/api/v1/integration-keys').set(admin()).send({ roles: ['timeline.writer'] })).status).toBe(400);
    expect((await t.http().post('/api/v1/integration-keys').set(admin()).send({ name: ' ', roles: ['timeline.writer'] })).status).toBe(400);
  });

  it('is for integrations.admin only: 403 to a writer or reader, 401 without a token', async () => {
    const created = await create();
    const calls = [
      () => t.http().post('/api/v1/integration-keys').send({ name: 'x', roles: ['timeline.writer'] }),
      () => t.http().get('/api/v1/integration-keys'),
      () => t.http().get('/api/v1/integration-keys/events'),
      () => t.http().delete(`/api/v1/integration-keys/${created.id}`),
    ];
    for (const call of calls) {
      const res = await call().set(reader());
      expect([res.status, res.body]).toEqual([403, { error: 'This needs the integrations.admin role', status: 403 }]);
      expect((await call()).status).toBe(401);
    }
    await append(created.key).expect(201);
  });
});

describe('integration keys across a restart and a rebuild of the read models', () => {
  const dir = tempDir('keys-restart');
  afterAll(() => dir.remove());

  it('keeps valid keys valid, revoked keys revoked and the key history the same once `projections:rebuild` replays the ledger, and fills in the history of an older data directory', async () => {
    let t = await startTestApp({}, dir.path);
    const create = async () => (await t.http().post('/api/v1/integration-keys').set(ADMIN).send({ name: 'grafana', roles: ['timeline.writer'] }).expect(201)).body as Created;
    const kept = await create();
    const revoked = await create();
    await t.http().delete(`/api/v1/integration-keys/${revoked.id}`).set(ADMIN).expect(204);
    const history = (await t.http().get('/api/v1/integration-keys/events').set(ADMIN).expect(200)).body as { type: string; data: { id: string } }[];
    expect(history.map((e) => [e.type, e.data.id])).toEqual([
      ['im.integration_key.created', kept.id],
      ['im.integration_key.created', revoked.id],
      ['im.integration_key.revoked', revoked.id],
    ]);
    await t.app.close();

    // What `npm run projections:rebuild` runs (apps/projector/src/rebuild.command.ts): empty every read model, replay the log.
    const events = new SqliteEventStore(join(dir.path, EVENTS_FILE));
    // The history is the ledger's stream, byte for byte, but for the key hashes.
    const ledger = (await events.readStream(INTEGRATION_KEYS_STREAM)).map(({ event, recordedAt }) => {
      const { key_hash: hash, ...data } = event.data ?? {};
      expect(hash === undefined).toBe(event.type !== 'im.integration_key.created');
      return { ...event, data, recorded_at: recordedAt };
    });
    expect(JSON.stringify(history)).toBe(JSON.stringify(ledger));
    const store = new SqliteReadStore(join(dir.path, READ_MODELS_FILE));
    await rebuildProjections(events, store, ALL_PROJECTIONS);
    await store.close();
    await events.close();

    t = await startTestApp({}, dir.path);
    try {
      const append = (key: string) => t.http().post('/api/v1/timeline/events').set(bearer(key)).send(alert());
      await append(kept.key).expect(201);
      expect((await append(revoked.key)).status).toBe(401);
      const listed = (await t.http().get('/api/v1/integration-keys').set(ADMIN).expect(200)).body as { id: string; revoked_at: string | null }[];
      expect(Object.fromEntries(listed.map((k) => [k.id, k.revoked_at === null]))).toEqual({ [kept.id]: true, [revoked.id]: false });
      // The history is a read model too: the rebuild gives the same answer, field for field.
      expect((await t.http().get('/api/v1/integration-keys/events').set(ADMIN).expect(200)).body).toEqual(history);
    } finally {
      await t.app.close();
    }

    // A data directory from before the history was a read model: no table, no checkpoint. The runner folds it from the start of the log.
    const read = new Database(join(dir.path, READ_MODELS_FILE));
    read.exec(`DROP TABLE ${integrationKeyHistoryProjection.name}`);
    read.prepare(`DELETE FROM checkpoints WHERE projection = ?`).run(integrationKeyHistoryProjection.name);
    read.close();
    t = await startTestApp({}, dir.path);
    try {
      // Reads wait for nothing: the test waits until the runner has reached the head of the log.
      await t.app.get<ProjectionWorker>(PROJECTION_WORKER).catchUp(5000);
      expect((await t.http().get('/api/v1/integration-keys/events').set(ADMIN).expect(200)).body).toEqual(history);
    } finally {
      await t.app.close();
    }
  });
});
