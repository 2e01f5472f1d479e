import { connect, type Socket } from 'node:net';
import { startServer, type ServerProcess } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/app';
import { AUDITOR, noteFor } from './campaign';

jest.setTimeout(60_000);

describe('resource limits (in-process)', () => {
  let t: TestApp;
  let incidentId: string;
  beforeAll(async () => {
    t = await startTestApp();
    incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Limits', severity: 'SEV-3' }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  const refusal = (status: number) => ({ error: expect.any(String), status });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await t.http().post('/api/v1/incidents').set('content-type', 'application/json').send(JSON.stringify({ title: 'x'.repeat(1024 * 1024), severity: 'SEV-1' }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual(refusal(413));
  });

  it('refuses an event over 64 KiB with 413', async () => {
    const event = JSON.parse(noteFor(incidentId).body);
    event.data.content = 'x'.repeat(70 * 1024);
    const res = await t.http().post('/api/v1/timeline/events').set({ authorization: AUDITOR, 'content-type': 'application/cloudevents+json' }).send(JSON.stringify(event));
    expect(res.status).toBe(413);
  });

  it('refuses JSON nested deeper than 64 levels with 400, before parsing it', async () => {
    const res = await t.http().post('/api/v1/timeline/query').set({ authorization: AUDITOR, 'content-type': 'application/json' }).send('['.repeat(100_000) + ']'.repeat(100_000));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'The JSON body nests deeper than 64 levels', status: 400 });
  });

  it.each(['0', '1001', '-1', 'abc', '1e3'])('refuses timeline limit=%s with 400', async (limit) => {
    const res = await t.http().get(`/api/v1/incidents/${incidentId}/timeline?limit=${limit}`).set({ authorization: AUDITOR });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refusal(400));
  });

  const graphql = (query: string) => t.http().post('/api/v1/graphql').set({ authorization: AUDITOR }).send({ query });
  const codeOf = (res: { body: { errors?: { extensions: { code: string } }[] } }) => res.body.errors?.[0]?.extensions.code;

  it('refuses a GraphQL query nested deeper than the depth limit (fragment spreads count)', async () => {
    const fragments = Array.from({ length: 12 }, (_, i) => `fragment F${i} on IncidentSummary { id ${i < 11 ? `...F${i + 1}` : ''} }`).join('\n');
    const res = await graphql(`{ myIncidents { ...F0 } }\n${fragments}`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
    expect(res.body.errors[0].message).toMatch(/depth limit of 10 exceeded/);
  });

  it('refuses deeply nested introspection (graphql-js bounds it)', async () => {
    const res = await graphql('{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }');
    expect(res.status).toBe(400);
    expect(typeof codeOf(res)).toBe('string');
    expect(res.body.data).toBeUndefined();
  });

  it('refuses a GraphQL query over the complexity limit (aliases multiply the cost)', async () => {
    const aliases = Array.from({ length: 300 }, (_, i) => `a${i}: myIncidents(limit: 50) { id title status }`).join(' ');
    const res = await graphql(`{ ${aliases} }`);
    expect(codeOf(res)).toBe('QUERY_TOO_COMPLEX');
  });
});

/** A raw connection that sends `text` one byte at a time, every `everyMs`; resolves with what the server answered. */
function trickle(url: string, text: string, everyMs: number): { socket: Socket; answer: Promise<{ data: string; ms: number }> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const started = Date.now();
  let data = '';
  let i = 0;
  const timer = setInterval(() => {
    if (i < text.length && socket.writable) socket.write(text[i++]);
  }, everyMs);
  socket.on('data', (chunk) => (data += chunk.toString()));
  const answer = new Promise<{ data: string; ms: number }>((resolve) => {
    const done = () => {
      clearInterval(timer);
      resolve({ data, ms: Date.now() - started });
    };
    socket.on('close', done);
    socket.on('error', done);
  });
  return { socket, answer };
}

describe('slow clients (the built server, REQUEST_TIMEOUT_MS=1500)', () => {
  const dir = tempDir('campaign-slow');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATA_DIR: dir.path, REQUEST_TIMEOUT_MS: '1500' });
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    dir.remove();
  });

  it('cuts off a client that trickles its body with 408, and one that trickles its headers', async () => {
    const body = '{"title":"slow","severity":"SEV-3"}';
    const slowBody = trickle(server.url, `POST /api/v1/incidents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 50);
    const slowHeaders = trickle(server.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'p'.repeat(500), 100);
    for (const { answer } of [slowBody, slowHeaders]) {
      const { data, ms } = await answer;
      expect(data).toMatch(/^HTTP\/1\.1 408/);
      expect(data).toContain('{"error":"The request did not arrive in time","status":408}');
      expect(ms).toBeLessThan(4000);
    }
  });

  it('keeps answering others while 200 slow clients hold connections open', async () => {
    const slow = Array.from({ length: 200 }, () => trickle(server.url, 'POST /api/v1/incidents HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n' + '{'.repeat(1000), 200));
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    for (let i = 0; i < 20; i++) expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    const answers = await Promise.all(slow.map((s) => s.answer));
    expect(answers.every((a) => a.data.startsWith('HTTP/1.1 408'))).toBe(true);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
