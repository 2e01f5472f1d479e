import fc from 'fast-check';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from '../support/app';
import { AUDITOR, counts, noteFor } from './campaign';

jest.setTimeout(counts.fuzzRuns * 200 + 60_000);

const STACK_TRACE = /\n\s+at |\.ts:\d+|\.js:\d+|node_modules|webpack/;

interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

const routes = (incidentId: string) => [
  '/api/v1/timeline/events',
  '/api/v1/timeline/events/some-event',
  `/api/v1/incidents/${incidentId}/timeline`,
  `/api/v1/incidents/${incidentId}/timeline/export`,
  '/api/v1/timeline/query',
  '/api/v1/incidents',
  `/api/v1/incidents/${incidentId}`,
  `/api/v1/incidents/${incidentId}/ack`,
  `/api/v1/incidents/${incidentId}/mitigate`,
  `/api/v1/incidents/${incidentId}/resolve`,
  `/api/v1/incidents/${incidentId}/close`,
  '/api/v1/validate',
  '/api/v1/simulate',
  '/api/v1/schema',
  '/api/v1/openapi.json',
  '/api/v1/graphql',
  '/api/v1/preferences',
  '/health',
];

const QUERY_KEYS = ['limit', 'cursor', 'order', 'type', 'from_time', 'to_time', 'actor', 'format', 'self_test', 'status', 'severity', 'query', 'variables', 'correlation_key'];

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('-1', '0', '1e309', 'NaN', '99999999999999999999', '[]', '{}', 'null', '%00', '../../etc/passwd', "' OR 1=1 --", '<script>', '\u0000', 'a'.repeat(10_000)),
);

const queryString = fc
  .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), hostileString), { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));

const nestedJson = fc.integer({ min: 50, max: 100_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));

const body = (incidentId: string) =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant(noteFor(incidentId).body),
    fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)),
    fc.record({ specversion: fc.constant('1.0'), id: hostileString, source: hostileString, type: hostileString, time: hostileString, subject: hostileString, data: fc.jsonValue({ maxDepth: 3 }) }).map((v) => JSON.stringify(v)),
    fc.record({ query: hostileString, variables: fc.jsonValue({ maxDepth: 3 }) }).map((v) => JSON.stringify(v)),
    fc.constant('{"__proto__": {"polluted": true}, "title": "x", "severity": "SEV-1"}'),
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    nestedJson,
    fc.integer({ min: 1, max: 3 }).map((mib) => JSON.stringify({ title: 'x'.repeat(mib * 1024 * 1024), severity: 'SEV-1' })),
  );

const headers = fc.record({
  'content-type': fc.constantFrom('application/json', 'application/cloudevents+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', '', 'garbage/; ;'),
  authorization: fc.constantFrom(AUDITOR, '', 'Bearer ', 'Bearer x.y.z', `Bearer ${'a'.repeat(8000)}`, 'Basic Zm9vOmJhcg=='),
  accept: fc.constantFrom('application/json', 'text/markdown', '*/*', 'image/png'),
});

const request = (incidentId: string): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    method: fc.constantFrom('GET', 'POST', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
    url: fc.tuple(fc.oneof(fc.constantFrom(...routes(incidentId)), fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`)), queryString).map(([path, query]) => `${path}${query}`),
    headers: headers.map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== ''))),
    payload: body(incidentId),
  });

/** Is this a well-formed refusal: `{error, status}` over REST, a coded GraphQL error on /graphql? */
function refusalShape(url: string, status: number, text: string): void {
  const parsed = JSON.parse(text) as { error?: unknown; status?: unknown; errors?: { extensions?: { code?: unknown } }[] };
  if (url.startsWith('/api/v1/graphql') && parsed.errors) {
    for (const error of parsed.errors) expect(typeof error.extensions?.code).toBe('string');
    return;
  }
  expect(typeof parsed.error).toBe('string');
  expect(parsed.status).toBe(status);
}

describe('every HTTP endpoint under fuzzing (fast-check, in-process)', () => {
  let t: TestApp;
  let incidentId: string;
  let store: EventStore;
  const tally = { requests: 0, refused: 0, accepted: 0 };

  beforeAll(async () => {
    t = await startTestApp();
    store = t.app.get(EVENT_STORE);
    incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'Fuzz target', severity: 'SEV-3' }).expect(201)).body.id;
  });
  afterAll(async () => {
    console.info(`input fuzzing: ${JSON.stringify(tally)}`);
    await t.close();
  });

  it(`answers ${counts.fuzzRuns} random and malformed requests without a 5xx or a stack trace, storing nothing it refused`, async () => {
    const fastify = t.app.getHttpAdapter().getInstance();
    await fc.assert(
      fc.asyncProperty(request(incidentId), async (req) => {
        const before = await store.headPosition();
        const res = await fastify.inject({ method: req.method, url: req.url, headers: req.headers, payload: req.payload });
        tally.requests++;
        expect(res.statusCode).toBeLessThan(500);
        expect(res.body).not.toMatch(STACK_TRACE);
        if (res.statusCode >= 400) {
          tally.refused++;
          refusalShape(req.url, res.statusCode, res.body);
          expect(await store.headPosition()).toBe(before);
        } else tally.accepted++;
      }),
      { numRuns: counts.fuzzRuns },
    );
    // Still serving, and the prototype was never polluted.
    await t.http().get('/health').expect(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
