import { randomUUID } from 'node:crypto';
import { EventSource } from 'eventsource';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { EmbeddedPdp, loadTimelinePolicy } from '@im/policy';
import { LiveFeed } from '../apps/api/src/live/live-feed';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { readStream, SseClient } from './support/sse';
import { bearer, token } from './support/tokens';
import { startFakeOpa } from './policy/fake-opa';

/**
 * Live delivery (docs/api.md), read with real clients: the `eventsource`
 * package (and fetch, for what EventSource hides) against the listening server.
 */

// A relay: its notes name other people as their actors.
const WRITER = token({ sub: 'writer', roles: ['timeline.writer', 'timeline.relay'] });
const PII_READER = token({ sub: 'pii-reader', roles: ['timeline.reader'], clearance: 'internal', data_access: ['pii'] });
const READER_CLAIMS = { sub: 'reader', roles: ['timeline.reader'], clearance: 'internal', data_access: [] };
const READER = token(READER_CLAIMS);
const PUBLIC_READER = token({ sub: 'bob', roles: ['timeline.reader'], clearance: 'public', data_access: [] });
const OFFICER = token({ sub: 'officer', roles: ['timeline.reader', 'timeline.writer'], clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] });

async function listening(env: Record<string, string> = {}): Promise<{ t: TestApp; url: string }> {
  const t = await startTestApp(env);
  await t.app.listen(0, '127.0.0.1');
  return { t, url: `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}` };
}

const note = (t: TestApp, incidentId: string, data: Record<string, unknown>, attributes: Record<string, unknown> = {}) =>
  t
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...bearer(WRITER), 'content-type': 'application/cloudevents+json' })
    .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://live-test', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incidentId}`, data, ...attributes }))
    .expect(201);

const declare = async (t: TestApp, title = 'Checkout is down') => (await t.http().post('/api/v1/incidents').send({ title, severity: 'SEV-2' }).expect(201)).body.id as string;

async function declareConfidential(t: TestApp): Promise<string> {
  const res = await t.http().post('/api/v1/graphql').set(bearer(OFFICER)).send({ query: 'mutation { declareIncident(input: { title: "Merger", severity: SEV_1, visibility: "confidential" }) { id } }' });
  return res.body.data.declareIncident.id;
}

/** Nothing more arrives within a while: what was received is all there is. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('GET /api/v1/incidents/{id}/timeline/stream', () => {
  let t: TestApp;
  let url: string;
  const clients: SseClient[] = [];
  const stream = (incidentId: string, jwt: string | undefined, query = '', headers: Record<string, string> = {}) => {
    const client = new SseClient(`${url}/api/v1/incidents/${incidentId}/timeline/stream${query}`, jwt, ['timeline'], headers);
    clients.push(client);
    return client;
  };
  beforeAll(async () => ({ t, url } = await listening({ LIVE_HEARTBEAT_MS: '200' })));
  afterEach(() => clients.splice(0).forEach((c) => c.close()));
  afterAll(() => t.close());

  it('sends each event appended after it opened, exactly as the timeline read shows it to the caller, with its cursor as id', async () => {
    const id = await declare(t);
    await note(t, id, { content: 'before the stream' });
    const client = stream(id, PII_READER);
    await client.opened;
    await note(t, id, { content: 'first' });
    await note(t, id, { content: 'second' });
    const received = await client.waitFor(2);
    const read = (await t.http().get(`/api/v1/incidents/${id}/timeline?order=asc`).set(bearer(PII_READER)).expect(200)).body.events;
    expect(received.map((r) => r.data)).toEqual(read.slice(-2));
    expect(received.map((r) => r.type)).toEqual(['timeline', 'timeline']);
    expect(new Set(received.map((r) => r.id)).size).toBe(2);
    await settle();
    expect(client.received).toHaveLength(2);
  });

  it('redacts per subscriber: a pii note reaches a reader without pii access redacted, and one with it in full', async () => {
    const id = await declare(t);
    const [plain, redacted] = [stream(id, PII_READER), stream(id, READER)];
    await Promise.all([plain.opened, redacted.opened]);
    const secret = `SSN-${randomUUID()}`;
    await note(t, id, { content: secret }, { 'im.data_class': ['pii'], 'im.actor': `actor-${secret}` });
    const [full] = await plain.waitFor(1);
    const [hidden] = await redacted.waitFor(1);
    // The sender (the relay that wrote it) travels beside the actor, and is hidden with it.
    expect(full.data).toMatchObject({ content: secret, actor: `actor-${secret}`, sender: 'writer', redacted: [] });
    expect(hidden.data).toMatchObject({ actor: '[REDACTED]', sender: '[REDACTED]' });
    expect(JSON.stringify(hidden.data)).not.toContain(secret);
    expect(hidden.data.content).toBe('[REDACTED]');
    expect(hidden.data.redacted).toEqual(expect.arrayContaining(['data.content']));
    const read = (await t.http().get(`/api/v1/incidents/${id}/timeline`).set(bearer(READER)).expect(200)).body.events;
    expect(hidden.data).toEqual(read[0]);
  });

  it('never sends an event the policy withholds from the subscriber, and sends the next one', async () => {
    const id = await declare(t);
    const [reader, officer] = [stream(id, READER), stream(id, OFFICER)];
    await Promise.all([reader.opened, officer.opened]);
    await note(t, id, { content: 'board only' }, { 'im.visibility': 'confidential' });
    await note(t, id, { content: 'for everyone' });
    expect((await officer.waitFor(2)).map((r) => r.data.content)).toEqual(['board only', 'for everyone']);
    expect((await reader.waitFor(1)).map((r) => r.data.content)).toEqual(['for everyone']);
    await settle();
    expect(reader.received).toHaveLength(1);
  });

  it('resumes after ?after= or Last-Event-ID with no gap and no repeat', async () => {
    const id = await declare(t);
    const first = stream(id, READER);
    await first.opened;
    for (const content of ['e1', 'e2']) await note(t, id, { content });
    const [e1] = await first.waitFor(2);
    first.close();
    for (const content of ['e3', 'e4']) await note(t, id, { content });
    const byQuery = stream(id, READER, `?after=${e1.id}`);
    expect((await byQuery.waitFor(3)).map((r) => r.data.content)).toEqual(['e2', 'e3', 'e4']);
    // The header wins over the query, as when an EventSource opened with ?after= reconnects.
    const byHeader = stream(id, READER, `?after=${e1.id}`, { 'last-event-id': byQuery.received[1].id });
    expect((await byHeader.waitFor(1)).map((r) => r.data.content)).toEqual(['e4']);
    await note(t, id, { content: 'e5' });
    expect((await byQuery.waitFor(4)).map((r) => r.data.content)).toEqual(['e2', 'e3', 'e4', 'e5']);
    expect((await byHeader.waitFor(2)).map((r) => r.data.content)).toEqual(['e4', 'e5']);
    await settle();
    expect([byQuery.received.length, byHeader.received.length]).toEqual([4, 2]);
  });

  it('sends a comment line while there is nothing to send', async () => {
    const id = await declare(t);
    const { status, text } = await readStream(`${url}/api/v1/incidents/${id}/timeline/stream`, bearer(READER), /: keep-alive\n\n/, 5000);
    expect(status).toBe(200);
    expect(text).toMatch(/^: stream open\n\n: keep-alive\n\n/);
  });

  it('refuses before streaming, in {error, status}: a bad or foreign cursor 400, no token 401, no role 403, an unknown or withheld incident 404 as the timeline read', async () => {
    const id = await declare(t);
    const other = await declare(t);
    const client = stream(id, READER);
    await client.opened;
    await note(t, id, { content: 'x' });
    const [{ id: cursor }] = await client.waitFor(1);
    const get = (incidentId: string, headers: Record<string, string>) => t.http().get(`/api/v1/incidents/${incidentId}/timeline/stream`).set(headers);
    expectError(await get(id, { ...bearer(READER), 'last-event-id': 'garbage' }), 400, /Last-Event-ID/);
    expectError(await t.http().get(`/api/v1/incidents/${id}/timeline/stream?after=${cursor}x`).set(bearer(READER)), 400);
    expectError(await get(other, { ...bearer(READER), 'last-event-id': cursor }), 400);
    expectError(await get(id, { ...bearer(PII_READER), 'last-event-id': cursor }), 400);
    expectError(await get(id, {}), 401);
    expectError(await get(id, bearer(token({ roles: ['timeline.writer'] }))), 403, /timeline\.reader/);
    const unknown = await get('INC-00000000', bearer(READER));
    expectError(unknown, 404);
    const withheld = await declareConfidential(t);
    const [streamed, read] = [await get(withheld, bearer(READER)), await t.http().get(`/api/v1/incidents/${withheld}/timeline`).set(bearer(READER))];
    expectError(streamed, 404);
    expect(streamed.body.error).toBe(read.body.error);
    expect(streamed.body.error.replace(withheld, 'ID')).toBe(unknown.body.error.replace('INC-00000000', 'ID'));
  });

  it('ends the stream when its token expires, with event: error {error, status: 401}, and the client resumes with a fresh token and its Last-Event-ID', async () => {
    const id = await declare(t);
    const raw = readStream(`${url}/api/v1/incidents/${id}/timeline/stream`, bearer(token(READER_CLAIMS, { expiresIn: 2 })), /(?!)/, 8000);
    let jwt = token(READER_CLAIMS, { expiresIn: 2 });
    const source = new EventSource(`${url}/api/v1/incidents/${id}/timeline/stream`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${jwt}` } }),
    });
    const contents: string[] = [];
    const refusals: unknown[] = [];
    source.addEventListener('timeline', (event) => contents.push(JSON.parse(event.data).content));
    // The server's `event: error` arrives as a message event named error; the client's own connection errors carry no data.
    source.addEventListener('error', (event) => 'data' in event && refusals.push(JSON.parse(String(event.data))));
    try {
      await new Promise<void>((resolve) => (source.onopen = () => resolve()));
      await note(t, id, { content: 'before expiry' });
      const { status, text, ended } = await raw;
      expect(status).toBe(200);
      expect(ended).toBe(true);
      expect(JSON.parse(text.match(/event: error\ndata: (.*)\n\n$/)![1])).toEqual({ error: 'The bearer token has expired', status: 401 });
      for (let i = 0; i < 20 && refusals.length === 0; i++) await settle();
      expect(refusals).toEqual([{ error: 'The bearer token has expired', status: 401 }]);
      jwt = token(READER_CLAIMS);
      await note(t, id, { content: 'while reconnecting' });
      for (let i = 0; i < 50 && contents.length < 2; i++) await settle();
      expect(contents).toEqual(['before expiry', 'while reconnecting']);
    } finally {
      source.close();
    }
  }, 20_000);

  it('ends the subscription when the client goes away', async () => {
    const feed = t.app.get(LiveFeed);
    const id = await declare(t);
    const client = stream(id, READER);
    await client.opened;
    expect(feed.subscriberCount).toBe(1);
    client.close();
    await note(t, id, { content: 'after the client left' });
    for (let i = 0; i < 50 && feed.subscriberCount > 0; i++) await settle();
    expect(feed.subscriberCount).toBe(0);
  });
});

describe('GET /api/v1/incidents/stream', () => {
  let t: TestApp;
  let url: string;
  const clients: SseClient[] = [];
  const open = (jwt: string) => {
    const client = new SseClient(`${url}/api/v1/incidents/stream`, jwt, ['incident']);
    clients.push(client);
    return client;
  };
  beforeAll(async () => ({ t, url } = await listening()));
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await t.close();
  });

  it('sends every change as the REST Incident object, after the change is applied', async () => {
    const client = open(READER);
    await client.opened;
    const id = await declare(t, 'Payments slow');
    await t.http().post(`/api/v1/incidents/${id}/ack`).expect(200);
    const [declared, acked] = await client.waitFor(2);
    expect(declared).toMatchObject({ type: 'incident', data: { id, title: 'Payments slow', status: 'open' } });
    expect(acked.data).toEqual((await t.http().get(`/api/v1/incidents/${id}`).expect(200)).body);
    expect(acked.data.status).toBe('acknowledged');
  });

  it('never sends a change of an incident withheld from the caller, and resumes from its cursor', async () => {
    const [reader, officer] = [open(READER), open(OFFICER)];
    await Promise.all([reader.opened, officer.opened]);
    const secret = await declareConfidential(t);
    const open1 = await declare(t, 'Visible one');
    expect((await officer.waitFor(2)).map((r) => r.data.id)).toEqual([secret, open1]);
    expect((await reader.waitFor(1)).map((r) => r.data.id)).toEqual([open1]);
    const open2 = await declare(t, 'Visible two');
    await reader.waitFor(2);
    const resumed = new SseClient(`${url}/api/v1/incidents/stream?after=${reader.received[0].id}`, READER, ['incident']);
    clients.push(resumed);
    expect((await resumed.waitFor(1)).map((r) => r.data.id)).toEqual([open2]);
    await settle();
    expect(resumed.received).toHaveLength(1);
    expect(JSON.stringify(reader.received)).not.toContain(secret);
  });

  it('sends nothing for an event withheld from the caller (a confidential note), and then the next change', async () => {
    const id = await declare(t, 'Quiet one');
    const bob = open(PUBLIC_READER);
    await bob.opened;
    await note(t, id, { content: 'board only' }, { 'im.visibility': 'confidential' });
    await t.http().post(`/api/v1/incidents/${id}/ack`).expect(200);
    const [acked] = await bob.waitFor(1);
    expect(acked.data).toEqual((await t.http().get(`/api/v1/incidents/${id}`).expect(200)).body);
    expect(acked.data.status).toBe('acknowledged');
    await settle();
    expect(bob.received).toHaveLength(1);
  });

  it('refuses a cursor of another caller or stream with 400', async () => {
    const client = open(READER);
    await client.opened;
    await declare(t);
    const [{ id: cursor }] = await client.waitFor(1);
    expectError(await t.http().get(`/api/v1/incidents/stream?after=${cursor}`).set(bearer(OFFICER)), 400);
  });
});

describe('the comment line of a quiet stream', () => {
  it('comes before LIVE_HEARTBEAT_MS has passed, every time, with a margin for timer drift', async () => {
    const { t, url } = await listening({ LIVE_HEARTBEAT_MS: '1000' });
    const controller = new AbortController();
    try {
      const id = await declare(t);
      const response = await fetch(`${url}/api/v1/incidents/${id}/timeline/stream`, { headers: bearer(READER), signal: controller.signal });
      // A hijacked reply still carries the API's security headers.
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      // Arrival times of the opening comment and of each keep-alive after it.
      const times: number[] = [];
      while (times.length < 4) {
        const text = decoder.decode((await reader.read()).value, { stream: true });
        const now = performance.now();
        times.push(...(text.match(/^: (stream open|keep-alive)\n\n/gm) ?? []).map(() => now));
      }
      const gaps = times.slice(1).map((time, i) => time - times[i]);
      expect(gaps.filter((gap) => gap >= 1000)).toEqual([]);
    } finally {
      controller.abort();
      await t.close();
    }
  }, 20_000);
});

describe('a subscriber that cannot keep up', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => ({ t, url } = await listening({ LIVE_QUEUE_LIMIT: '5' })));
  afterAll(() => t.close());

  it('is disconnected, with memory bounded, and resumes from its last cursor with no gap', async () => {
    const feed = t.app.get(LiveFeed);
    const id = await declare(t);
    const port = new URL(url).port;
    // A client that sends its request and then reads nothing: the socket fills, then its queue.
    const socket: Socket = connect(Number(port), '127.0.0.1');
    socket.pause();
    socket.write(`GET /api/v1/incidents/${id}/timeline/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${READER}\r\nAccept: text/event-stream\r\n\r\n`);
    for (let i = 0; i < 50 && feed.subscriberCount === 0; i++) await settle();
    expect(feed.subscriberCount).toBe(1);
    const padding = 'x'.repeat(60_000);
    let sent = 0;
    while (feed.subscriberCount > 0 && sent < 600) {
      const batch = Array.from({ length: 10 }, () => ({
        specversion: '1.0',
        id: randomUUID(),
        source: 'im://live-test',
        type: 'im.incident.note',
        time: new Date().toISOString(),
        subject: `incident/${id}`,
        data: { content: `n${sent++}`, padding },
      }));
      await t.http().post('/api/v1/timeline/events').set({ ...bearer(WRITER), 'content-type': 'application/cloudevents-batch+json' }).send(JSON.stringify(batch)).expect(200);
    }
    expect(feed.subscriberCount).toBe(0);
    // What reached the client is whole events up to where it was cut; it resumes after the last one.
    const text = await new Promise<string>((resolve) => {
      let all = '';
      socket.on('data', (chunk) => (all += chunk.toString()));
      socket.on('close', () => resolve(all));
      socket.resume();
    });
    const frames = [...text.matchAll(/id: (\S+)\nevent: timeline\ndata: (.*)\n\n/g)].map((m) => ({ id: m[1], content: JSON.parse(m[2]).content as string }));
    expect(frames.length).toBeLessThan(sent);
    const resumed = new SseClient(`${url}/api/v1/incidents/${id}/timeline/stream`, READER, ['timeline'], frames.length ? { 'last-event-id': frames[frames.length - 1].id } : {});
    try {
      const rest = await resumed.waitFor(sent - frames.length, 30_000);
      expect([...frames, ...rest.map((r) => ({ content: r.data.content }))].map((f) => f.content)).toEqual(Array.from({ length: sent }, (_, i) => `n${i}`));
    } finally {
      resumed.close();
    }
  }, 60_000);
});

describe('with the policy decision point unavailable (POLICY_MODE=opa)', () => {
  it('answers 503 {error, status} before a stream starts', async () => {
    const { t } = await listening({ POLICY_MODE: 'opa', OPA_URL: 'http://127.0.0.1:9', OPA_TIMEOUT_MS: '300' });
    try {
      const id = await declare(t);
      expectError(await t.http().get(`/api/v1/incidents/${id}/timeline/stream`).set(bearer(READER)), 503, /policy decision point is unavailable/);
      expectError(await t.http().get('/api/v1/incidents/INC-00000000/timeline/stream').set(bearer(READER)), 503, /policy decision point is unavailable/);
    } finally {
      await t.close();
    }
  });

  it('sends event: error {error, status: 503} on an open stream and closes it, with no event data', async () => {
    const opa = await startFakeOpa(new EmbeddedPdp(loadTimelinePolicy(join(__dirname, '../policy/timeline-policy.json'))));
    const { t, url } = await listening({ POLICY_MODE: 'opa', OPA_URL: opa.url, OPA_TIMEOUT_MS: '300' });
    try {
      const id = await declare(t);
      // Read to the end: the server must close the stream after the error.
      const reading = readStream(`${url}/api/v1/incidents/${id}/timeline/stream`, bearer(READER), /(?!)/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await opa.close();
      await note(t, id, { content: 'must not leak' });
      const { status, text, ended } = await reading;
      expect(status).toBe(200);
      const [, data] = text.match(/event: error\ndata: (.*)\n\n/)!;
      expect(JSON.parse(data)).toEqual({ error: expect.stringMatching(/policy decision point is unavailable/), status: 503 });
      expect(text).not.toContain('must not leak');
      expect(text).not.toContain('event: timeline');
      expect(ended).toBe(true);
    } finally {
      await t.close();
      await opa.close().catch(() => undefined);
    }
  });
});
