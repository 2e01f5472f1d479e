import { type Client, createClient, type ExecutionResult } from 'graphql-ws';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { EmbeddedPdp, loadTimelinePolicy } from '@im/policy';
import { LiveFeed } from '../apps/api/src/live/live-feed';
import { startFakeOpa } from './policy/fake-opa';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

jest.setTimeout(20_000);

/** A responder's token: reads and writes the timeline, sees internal incidents, no PII. */
const responder = (sub: string, claims: Record<string, unknown> = {}) =>
  token({ sub, roles: ['timeline.reader', 'timeline.writer'], clearance: 'internal', data_access: [], ...claims });

interface Closed {
  code: number;
  reason: string;
}

/** A graphql-ws client (the real library, on ws's WebSocket) that reports how its socket closed and never reconnects. */
function client(url: string, connectionParams: Record<string, unknown>): Client & { closed: Promise<Closed> } {
  let closed!: (event: Closed) => void;
  const closedPromise = new Promise<Closed>((resolve) => (closed = resolve));
  const c = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazyCloseTimeout: 0,
    on: { closed: (event) => closed({ code: (event as Closed).code, reason: String((event as Closed).reason) }) },
  });
  return Object.assign(c, { closed: closedPromise });
}

const as = (url: string, jwt: string) => client(url, { Authorization: `Bearer ${jwt}` });

type Result = ExecutionResult<Record<string, any>, { code?: string }>;

/** One subscription: every result it receives, and how it ended (complete, or the sink's error). */
function watch(c: Client, query: string, variables?: Record<string, unknown>) {
  const results: Result[] = [];
  const waiters: (() => void)[] = [];
  let stop!: () => void;
  const ended = new Promise<{ error?: unknown }>((resolve) => {
    stop = c.subscribe({ query, variables }, {
      next: (result) => {
        results.push(result as Result);
        waiters.splice(0).forEach((wake) => wake());
      },
      error: (error) => resolve({ error }),
      complete: () => resolve({}),
    });
  });
  return {
    results,
    ended,
    stop,
    /** Waits until `count` results have arrived (at most 5 s). */
    async received(count: number): Promise<Result[]> {
      const deadline = Date.now() + 5000;
      while (results.length < count) {
        if (Date.now() > deadline) throw new Error(`received ${results.length} of ${count} results: ${JSON.stringify(results)}`);
        await new Promise<void>((wake) => {
          waiters.push(wake);
          setTimeout(wake, 100);
        });
      }
      return results.slice(0, count);
    },
  };
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

const settle = () => new Promise((wake) => setTimeout(wake, 300));

async function listen(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return `ws://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}/api/v1/graphql`;
}

const INCIDENT_UPDATED = 'subscription ($id: ID!) { incidentUpdated(id: $id) { id status assignedTo { id role } quickTimeline { type summary } } }';
const MY_INCIDENTS_CHANGED = 'subscription { myIncidentsChanged { id title severity status lastUpdate } }';
const TIMELINE_EVENT = 'subscription ($incidentId: ID!) { timelineEvent(incidentId: $incidentId) { id type summary time } }';

describe('GraphQL subscriptions over graphql-ws', () => {
  let t: TestApp;
  let url: string;
  let feed: LiveFeed;
  const open: Client[] = [];
  const connect = (jwt: string) => {
    const c = as(url, jwt);
    open.push(c);
    return c;
  };
  /** Subscribes and waits until the feed has registered it, so a change made next is one it must see. */
  async function subscribed(c: Client, query: string, variables?: Record<string, unknown>) {
    const before = feed.subscriberCount;
    const w = watch(c, query, variables);
    await eventually(() => feed.subscriberCount > before, 'the subscription to start');
    return w;
  }

  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    feed = t.app.get(LiveFeed);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.dispose()));
    // Closed sockets end their feed subscriptions: none is left behind.
    await eventually(() => feed.subscriberCount === 0, 'every subscription to end with its socket');
  });
  afterAll(() => t.close());

  const gql = async (jwt: string, query: string, variables?: object) => {
    const res = await t.http().post('/api/v1/graphql').set(bearer(jwt)).send({ query, variables });
    expect(res.body.errors).toBeUndefined();
    return res.body.data as Record<string, any>;
  };
  const declare = async (jwt: string, input: object = {}) =>
    (await gql(jwt, 'mutation ($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }', { input: { title: 'Checkout is down', severity: 'SEV_1', ...input } }))
      .declareIncident.id as string;

  describe('connection_init', () => {
    it.each([
      ['no payload', {}],
      ['a token that is not a bearer', { Authorization: 'Basic YWxpY2U6c2VjcmV0' }],
      ['an expired token', { Authorization: `Bearer ${token({ sub: 'alice' }, { expiresIn: -5 })}` }],
      ['a forged token', { Authorization: `Bearer ${token({ sub: 'alice' }, {}, 'not-the-secret-not-the-secret-not-the-secret')}` }],
    ])('closes the socket with 4401 for %s, before any subscription starts', async (_, params) => {
      const before = feed.subscriberCount;
      const c = client(url, params);
      open.push(c);
      const w = watch(c, MY_INCIDENTS_CHANGED);
      const closed = await c.closed;
      expect(closed.code).toBe(4401);
      expect(closed.reason).not.toBe('');
      expect(await w.ended).toEqual({ error: expect.objectContaining({ code: 4401 }) });
      expect(w.results).toEqual([]);
      expect(feed.subscriberCount).toBe(before);
    });

    it('closes with 4401 when the token expires while the socket is open', async () => {
      const c = connect(token({ sub: 'alice', roles: ['timeline.reader'] }, { expiresIn: 2 }));
      const w = await subscribed(c, MY_INCIDENTS_CHANGED);
      expect((await c.closed).code).toBe(4401);
      expect(await w.ended).toEqual({ error: expect.objectContaining({ code: 4401, reason: 'The bearer token has expired' }) });
    });

    it('refuses an integration key with 4403, as GraphQL over HTTP does', async () => {
      const admin = bearer(token({ sub: 'ops-admin', roles: ['integrations.admin'] }));
      const { key } = (await t.http().post('/api/v1/integration-keys').set(admin).send({ name: 'sub-test', roles: ['timeline.writer'] }).expect(201)).body;
      const c = client(url, { Authorization: `Bearer ${key}` });
      open.push(c);
      watch(c, MY_INCIDENTS_CHANGED);
      expect(await c.closed).toEqual({ code: 4403, reason: 'An integration key is not accepted by GraphQL; use a token' });
    });
  });

  describe('roles', () => {
    it('closes with 4403 a timelineEvent subscription without timeline.reader, before it starts', async () => {
      const id = await declare(responder('alice'));
      const before = feed.subscriberCount;
      const c = connect(token({ sub: 'wendy', roles: ['timeline.writer'], clearance: 'internal' }));
      const w = watch(c, TIMELINE_EVENT, { incidentId: id });
      expect(await c.closed).toEqual({ code: 4403, reason: 'timelineEvent needs the timeline.reader role' });
      expect(w.results).toEqual([]);
      expect(feed.subscriberCount).toBe(before);
    });

    it('closes with 4403 also when timelineEvent is reached through a fragment', async () => {
      const c = connect(token({ sub: 'wendy', roles: ['timeline.writer'], clearance: 'internal' }));
      watch(c, 'subscription ($i: ID!) { ...F } fragment F on Subscription { ... on Subscription { timelineEvent(incidentId: $i) { id } } }', { i: 'INC-00000000' });
      expect((await c.closed).code).toBe(4403);
    });

    it('closes with 4403 incidentUpdated and myIncidentsChanged for a token without any role, and lets any role through', async () => {
      const id = await declare(responder('alice'));
      const roleless = connect(token({ sub: 'mallory', roles: [], clearance: 'internal' }));
      watch(roleless, INCIDENT_UPDATED, { id });
      expect((await roleless.closed).code).toBe(4403);
      const roleless2 = connect(token({ sub: 'mallory', roles: [], clearance: 'internal' }));
      watch(roleless2, MY_INCIDENTS_CHANGED);
      expect((await roleless2.closed).code).toBe(4403);

      const writer = connect(token({ sub: 'wendy', roles: ['timeline.writer'], clearance: 'internal' }));
      const w = await subscribed(writer, INCIDENT_UPDATED, { id });
      await gql(responder('alice'), `mutation { ackIncident(id: "${id}") { id } }`);
      const [first] = await w.received(1);
      expect(first.data!.incidentUpdated.status).toBe('ACKNOWLEDGED');
    });
  });

  describe('delivery', () => {
    it('timelineEvent delivers a note added through the GraphQL mutation and one appended through REST', async () => {
      const alice = responder('alice');
      const id = await declare(alice);
      const w = await subscribed(connect(alice), TIMELINE_EVENT, { incidentId: id });
      const note = (await gql(alice, `mutation { addNote(incidentId: "${id}", content: "Rolled back the deploy") { id } }`)).addNote;
      await t.http().post(`/api/v1/incidents/${id}/ack`).set(bearer(alice)).expect(200);
      const [first, second] = await w.received(2);
      expect(first).toEqual({ data: { timelineEvent: { id: note.id, type: 'im.incident.note', summary: 'Rolled back the deploy', time: expect.any(String) } } });
      expect(second.data!.timelineEvent.type).toBe('im.incident.ack');
    });

    it('incidentUpdated sends the mobile view after each change of that incident only', async () => {
      const alice = responder('alice');
      const id = await declare(alice);
      const other = await declare(alice, { title: 'Another one' });
      const w = await subscribed(connect(alice), INCIDENT_UPDATED, { id });
      await gql(alice, `mutation { addNote(incidentId: "${other}", content: "elsewhere") { id } }`);
      await gql(alice, `mutation { addNote(incidentId: "${id}", content: "Looking at it") { id } }`);
      await t.http().post(`/api/v1/incidents/${id}/resolve`).set(bearer(alice)).expect(200);
      const [noted, resolved] = await w.received(2);
      expect(noted.data!.incidentUpdated).toMatchObject({ id, status: 'OPEN', assignedTo: { id: 'alice', role: 'IC' } });
      expect(noted.data!.incidentUpdated.quickTimeline[0]).toEqual({ type: 'im.incident.note', summary: 'Looking at it' });
      expect(resolved.data!.incidentUpdated.status).toBe('RESOLVED');
      await settle();
      expect(w.results).toHaveLength(2);
    });

    it('myIncidentsChanged sends changes of incidents where the caller holds a role, and no others', async () => {
      const carol = responder('carol');
      const w = await subscribed(connect(carol), MY_INCIDENTS_CHANGED);
      await declare(responder('bob'), { title: 'Not carol’s' });
      const mine = await declare(carol, { title: 'Carol’s', severity: 'SEV_2' });
      const bobs = await declare(responder('bob'), { title: 'Bob asks carol' });
      await gql(responder('bob'), `mutation { assignRole(incidentId: "${bobs}", role: OPS, userId: "carol") { id } }`);
      await t.http().post(`/api/v1/incidents/${mine}/ack`).set(bearer(carol)).expect(200);
      const received = (await w.received(3)).map((r) => r.data!.myIncidentsChanged);
      expect(received).toEqual([
        { id: mine, title: 'Carol’s', severity: 'SEV_2', status: 'OPEN', lastUpdate: expect.any(String) },
        expect.objectContaining({ id: bobs, title: 'Bob asks carol' }),
        expect.objectContaining({ id: mine, status: 'ACKNOWLEDGED' }),
      ]);
      await settle();
      expect(w.results).toHaveLength(3);
    });

    it('sends nothing for an event withheld from the subscriber (a confidential note), and then the next change', async () => {
      const alice = responder('alice');
      const id = await declare(alice);
      await gql(alice, `mutation { assignRole(incidentId: "${id}", role: OPS, userId: "bob") { id } }`);
      const c = connect(responder('bob', { clearance: 'public' }));
      const updated = await subscribed(c, INCIDENT_UPDATED, { id });
      const mine = await subscribed(c, MY_INCIDENTS_CHANGED);
      await t.http().post('/api/v1/timeline/events').set({ ...bearer(alice), 'content-type': 'application/cloudevents+json' }).send(
        JSON.stringify({ specversion: '1.0', id: `board-${id}`, source: 'im://board', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${id}`, 'im.visibility': 'confidential', data: { content: 'Board only' } }),
      ).expect(201);
      await t.http().post(`/api/v1/incidents/${id}/ack`).set(bearer(alice)).expect(200);
      expect((await updated.received(1))[0].data!.incidentUpdated.status).toBe('ACKNOWLEDGED');
      expect((await mine.received(1))[0].data!.myIncidentsChanged).toMatchObject({ id, status: 'ACKNOWLEDGED' });
      await settle();
      expect([updated.results, mine.results].map((results) => results.length)).toEqual([1, 1]);
      expect(JSON.stringify(updated.results)).not.toContain('Board only');
    });

    it('delivers a PII note redacted to a subscriber without pii access, in full to one with it', async () => {
      const alice = responder('alice');
      const id = await declare(alice);
      const plain = await subscribed(connect(alice), TIMELINE_EVENT, { incidentId: id });
      const cleared = await subscribed(connect(responder('alice', { data_access: ['pii'] })), TIMELINE_EVENT, { incidentId: id });
      await t.http().post('/api/v1/timeline/events').set({ ...bearer(alice), 'content-type': 'application/cloudevents+json' }).send(
        JSON.stringify({ specversion: '1.0', id: `pii-${id}`, source: 'im://crm', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${id}`, 'im.data_class': ['pii'], data: { content: 'Customer Jane Roe, +1 555 0100' } }),
      ).expect(201);
      expect((await plain.received(1))[0].data!.timelineEvent.summary).toBe('[REDACTED]');
      expect((await cleared.received(1))[0].data!.timelineEvent.summary).toBe('Customer Jane Roe, +1 555 0100');
    });

    it('never sends anything of an incident withheld from the subscriber', async () => {
      const boss = responder('boss', { clearance: 'restricted' });
      const bob = responder('bob');
      const secret = await declare(boss, { title: 'Breach', visibility: 'restricted' });
      // A timeline or a view of it answers as for a missing incident.
      const c = connect(bob);
      const timeline = watch(c, TIMELINE_EVENT, { incidentId: secret });
      expect(await timeline.ended).toEqual({});
      expect(timeline.results).toEqual([{ errors: [expect.objectContaining({ message: `Incident ${secret} not found`, extensions: { code: 'NOT_FOUND' } })] }]);
      const view = watch(c, INCIDENT_UPDATED, { id: secret });
      await view.ended;
      expect(view.results[0].errors![0].extensions!.code).toBe('NOT_FOUND');

      // Bob holds a role on it, yet its changes never reach his subscription; those of a visible incident do.
      const mine = await subscribed(c, MY_INCIDENTS_CHANGED);
      await gql(boss, `mutation { assignRole(incidentId: "${secret}", role: OPS, userId: "bob") { id } }`);
      await gql(boss, `mutation { addNote(incidentId: "${secret}", content: "exfiltration confirmed") { id } }`);
      const visible = await declare(bob, { title: 'Visible' });
      const [first] = await mine.received(1);
      expect(first.data!.myIncidentsChanged.id).toBe(visible);
      await settle();
      expect(JSON.stringify(mine.results)).not.toContain(secret);
    });
  });

  describe('the operation', () => {
    it('holds a subscription to the same complexity limit as a query over HTTP, and keeps the socket', async () => {
      const alice = responder('alice');
      const c = connect(alice);
      const fields = Array.from({ length: 1001 }, (_, i) => `f${i}: id`).join(' ');
      const heavy = watch(c, `subscription { myIncidentsChanged { ${fields} } }`);
      expect(await heavy.ended).toEqual({ error: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_COMPLEX', maxComplexity: 1000 }) })] });
      const id = await declare(alice);
      const w = await subscribed(c, TIMELINE_EVENT, { incidentId: id });
      await gql(alice, `mutation { addNote(incidentId: "${id}", content: "still here") { id } }`);
      expect((await w.received(1))[0].data!.timelineEvent.summary).toBe('still here');
    });

    it('answers a query or a mutation sent over the socket with a coded error, and an invalid document with its validation error', async () => {
      const c = connect(responder('alice'));
      const query = watch(c, '{ myIncidents { id } }');
      expect(await query.ended).toEqual({ error: [expect.objectContaining({ message: expect.stringMatching(/POST \/api\/v1\/graphql/), extensions: { code: 'BAD_REQUEST' } })] });
      const invalid = watch(c, 'subscription { nothingLikeThis }');
      expect(await invalid.ended).toEqual({ error: [expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })] });
      const broken = watch(c, 'subscription {');
      expect(await broken.ended).toEqual({ error: [expect.objectContaining({ extensions: { code: 'GRAPHQL_PARSE_FAILED' } })] });
    });

    it('refuses a subscription sent over HTTP with 400 BAD_REQUEST, naming the socket', async () => {
      const res = await t.http().post('/api/v1/graphql').set(bearer(responder('alice'))).send({ query: MY_INCIDENTS_CHANGED });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/WebSocket.*graphql-transport-ws/), extensions: { code: 'BAD_REQUEST' } })]);
    });

    it('stops following the ledger for a subscription the client completes', async () => {
      const before = feed.subscriberCount;
      const w = await subscribed(connect(responder('alice')), MY_INCIDENTS_CHANGED);
      w.stop();
      await eventually(() => feed.subscriberCount === before, 'the feed to drop the subscriber');
    });

    it('answers an upgrade on any other path with 404', async () => {
      const ws = new WebSocket(url.replace('/api/v1/graphql', '/api/v1/elsewhere'), 'graphql-transport-ws');
      const status = await new Promise<number | undefined>((resolve) => {
        ws.on('unexpected-response', (_, res) => resolve(res.statusCode));
        ws.on('error', () => resolve(undefined));
      });
      expect(status).toBe(404);
    });
  });
});

describe('GraphQL subscriptions when the policy decision point is unavailable', () => {
  let t: TestApp;
  let url: string;
  let opa: Awaited<ReturnType<typeof startFakeOpa>>;
  const clients: Client[] = [];

  beforeAll(async () => {
    opa = await startFakeOpa(new EmbeddedPdp(loadTimelinePolicy(join(__dirname, '../policy/timeline-policy.json'))));
    t = await startTestApp({ POLICY_MODE: 'opa', OPA_URL: opa.url, OPA_TIMEOUT_MS: '500' });
    url = await listen(t);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t.close();
    await opa.close();
  });

  it('fails a subscription before it starts, and an open one at its next event, with SERVICE_UNAVAILABLE and no event data', async () => {
    const alice = responder('alice');
    const res = await t.http().post('/api/v1/graphql').set(bearer(alice)).send({ query: 'mutation { declareIncident(input: { title: "x", severity: SEV_2 }) { id } }' });
    const id = res.body.data.declareIncident.id as string;
    const c = as(url, alice);
    clients.push(c);

    opa.setMode('error');
    for (const [query, variables] of [[TIMELINE_EVENT, { incidentId: id }], [INCIDENT_UPDATED, { id }]] as const) {
      const refused = watch(c, query, variables);
      expect(await refused.ended).toEqual({});
      expect(refused.results).toEqual([{ errors: [expect.objectContaining({ extensions: { code: 'SERVICE_UNAVAILABLE' } })] }]);
    }

    opa.setMode('decide');
    const feed = t.app.get(LiveFeed);
    const before = feed.subscriberCount;
    const timeline = watch(c, TIMELINE_EVENT, { incidentId: id });
    const view = watch(c, INCIDENT_UPDATED, { id });
    await eventually(() => feed.subscriberCount === before + 2, 'both subscriptions to start');
    opa.setMode('error');
    await t.http().post(`/api/v1/incidents/${id}/ack`).set(bearer(alice));
    for (const w of [timeline, view]) {
      expect(await w.ended).toEqual({});
      expect(w.results).toEqual([{ data: null, errors: [expect.objectContaining({ message: expect.stringMatching(/policy decision point is unavailable/), extensions: { code: 'SERVICE_UNAVAILABLE' } })] }]);
    }
    expect(JSON.stringify([timeline.results, view.results])).not.toMatch(/ACKNOWLEDGED|im\.incident\.ack/);
  });
});

describe('a subscriber that falls behind', () => {
  let t: TestApp;
  let opa: Awaited<ReturnType<typeof startFakeOpa>>;
  let c: Client & { closed: Promise<Closed> };
  let url: string;

  beforeAll(async () => {
    opa = await startFakeOpa(new EmbeddedPdp(loadTimelinePolicy(join(__dirname, '../policy/timeline-policy.json'))));
    t = await startTestApp({ POLICY_MODE: 'opa', OPA_URL: opa.url, OPA_TIMEOUT_MS: '5000', LIVE_QUEUE_LIMIT: '1' });
    url = await listen(t);
  });
  afterAll(async () => {
    await c?.dispose();
    await t.close();
    await opa.close();
  });

  it('is cut off with 1013 once more changes wait than LIVE_QUEUE_LIMIT, and the feed lets it go', async () => {
    const alice = responder('alice');
    const id = (await t.http().post('/api/v1/incidents').set(bearer(alice)).send({ title: 'Busy', severity: 'SEV-2' }).expect(201)).body.id as string;
    c = as(url, alice);
    const feed = t.app.get(LiveFeed);
    const w = watch(c, INCIDENT_UPDATED, { id });
    await eventually(() => feed.subscriberCount === 1, 'the subscription to start');
    // Each view reads the timeline through the PDP, now slow: the changes behind the first one pile up.
    opa.setDelay(1500);
    for (const step of ['ack', 'mitigate', 'resolve']) await t.http().post(`/api/v1/incidents/${id}/${step}`).set(bearer(alice)).expect(200);
    const closed = await c.closed;
    expect(closed).toEqual({ code: 1013, reason: expect.stringMatching(/fell more than 1 events behind/) });
    expect(w.results.map((r) => r.data!.incidentUpdated.status)).toEqual(['ACKNOWLEDGED']);
    expect(feed.subscriberCount).toBe(0);
  });

  it('counts only changes of its own incident against LIVE_QUEUE_LIMIT for incidentUpdated: traffic elsewhere never cuts it off', async () => {
    opa.setDelay(0);
    const alice = responder('alice');
    const incident = async () => (await t.http().post('/api/v1/incidents').set(bearer(alice)).send({ title: 'Elsewhere', severity: 'SEV-3' }).expect(201)).body.id as string;
    const quiet = await incident();
    const busy = [await incident(), await incident(), await incident()];
    const own = as(url, alice);
    try {
      const feed = t.app.get(LiveFeed);
      const w = watch(own, INCIDENT_UPDATED, { id: quiet });
      await eventually(() => feed.subscriberCount === 1, 'the subscription to start');
      // Its view of the first change takes the slow PDP's time; meanwhile other incidents change.
      opa.setDelay(1000);
      await t.http().post(`/api/v1/incidents/${quiet}/ack`).set(bearer(alice)).expect(200);
      for (const id of busy) await t.http().post(`/api/v1/incidents/${id}/ack`).set(bearer(alice)).expect(200);
      await t.http().post(`/api/v1/incidents/${quiet}/mitigate`).set(bearer(alice)).expect(200);
      expect((await w.received(2)).map((r) => r.data!.incidentUpdated.status)).toEqual(['ACKNOWLEDGED', 'MITIGATED']);
      expect(feed.subscriberCount).toBe(1);
    } finally {
      opa.setDelay(0);
      await own.dispose();
    }
  });
});

describe('shutting down', () => {
  it('closes every socket with 1001 before the feed ends, so clients subscribe again elsewhere instead of seeing complete', async () => {
    const t = await startTestApp();
    const c = as(await listen(t), responder('alice'));
    try {
      const feed = t.app.get(LiveFeed);
      const w = watch(c, MY_INCIDENTS_CHANGED);
      await eventually(() => feed.subscriberCount === 1, 'the subscription to start');
      // What main.ts does on SIGTERM first (graceful-shutdown.ts): close the HTTP server.
      await t.app.getHttpAdapter().getInstance().close();
      expect(await c.closed).toEqual({ code: 1001, reason: 'Going away' });
      expect(await w.ended).toEqual({ error: expect.objectContaining({ code: 1001 }) });
    } finally {
      await c.dispose();
      await t.close();
    }
  });
});
