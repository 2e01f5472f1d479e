import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from 'jsonwebtoken';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { startTestApp, type TestApp } from './support/app';
import { startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

const event = () => ({
  specversion: '1.0',
  id: `auth-${Math.random()}`,
  source: 'im://auth-test',
  type: 'im.incident.declare',
  time: '2026-11-22T10:00:00Z',
  data: { title: 'Auth test', severity: 'SEV-4' },
});

const unsigned = (claims: object) =>
  `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(
    JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims }),
  ).toString('base64url')}.`;

describe('authentication and roles (development mode)', () => {
  let t: TestApp;
  let incidentId: string;
  beforeAll(async () => {
    t = await startTestApp();
    incidentId = (await t.http().post('/api/v1/incidents').send({ title: 'x', severity: 'SEV-3' }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const refused: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a Basic header', { authorization: 'Basic YWxpY2U6c2VjcmV0' }],
    ['"Bearer" without a token', { authorization: 'Bearer ' }],
    ['a token that is not a JWT', bearer('not.a.jwt')],
    ['a wrong signature', bearer(token({}, {}, 'another-secret-that-is-long-enough-to-sign'))],
    ['an expired token', bearer(token({}, { expiresIn: -10 }))],
    ['a token not valid yet', bearer(token({}, { notBefore: 3600 }))],
    ['alg none', bearer(unsigned({ sub: 'mallory', roles: ['timeline.reader'] }))],
    ['an RS256 token (algorithm not allowed)', bearer(sign({ sub: 'mallory', roles: ['timeline.reader'] }, rsa.privateKey, { algorithm: 'RS256' }))],
    ['HS512 with the right secret (algorithm pinned to HS256)', bearer(sign({ sub: 'a', roles: ['timeline.reader'] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS512' }))],
    ['a token without sub', bearer(token({ sub: undefined }))],
    ['roles that are not a string array', bearer(token({ roles: 'timeline.reader' }))],
    ['an unknown clearance', bearer(token({ clearance: 'top-secret' }))],
    ['an unknown data_access class', bearer(token({ data_access: ['everything'] }))],
  ];

  it.each(refused)('answers 401 to %s, in the error body', async (_, headers) => {
    const res = await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set(headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String), status: 401 });
  });

  const routes: [string, string, (http: TestApp["http"], headers: Record<string, string>) => Promise<{ status: number }>][] = [
    ['append', 'timeline.writer', (http, h) => http().post('/api/v1/timeline/events').set({ ...h, 'content-type': 'application/cloudevents+json' }).send(JSON.stringify(event()))],
    ['single event read', 'timeline.reader', (http, h) => http().get('/api/v1/timeline/events/unknown').set(h)],
    ['incident timeline', 'timeline.reader', (http, h) => http().get(`/api/v1/incidents/${incidentId}/timeline`).set(h)],
    ['cross-incident query', 'timeline.reader', (http, h) => http().post('/api/v1/timeline/query').set(h).send({ actor: 'alice' })],
    ['export', 'timeline.exporter', (http, h) => http().get(`/api/v1/incidents/${incidentId}/timeline/export`).set(h)],
  ];

  it.each(routes)('%s needs %s: 403 without it, and passes with it', async (_, role, call) => {
    const others = ['timeline.writer', 'timeline.reader', 'timeline.exporter'].filter((r) => r !== role);
    const without = await call(t.http, bearer(token({ roles: others })));
    expect(without.status).toBe(403);
    expect((without as unknown as { body: unknown }).body).toEqual({ error: `This needs the ${role} role`, status: 403 });
    const withRole = await call(t.http, bearer(token({ roles: [role] })));
    expect([200, 201, 404]).toContain(withRole.status);
  });

  it('keeps incident REST and health open without a token in development', async () => {
    await t.http().get('/health').expect(200);
    await t.http().get('/api/v1/incidents').expect(200);
  });

  it('refuses a bad token even where none is needed', async () => {
    const res = await t.http().get('/api/v1/incidents').set(bearer(token({}, { expiresIn: -10 })));
    expect(res.status).toBe(401);
  });

  it('stops accepting a token that verified once as soon as it expires', async () => {
    const shortLived = token({}, { expiresIn: 2 });
    const { exp } = JSON.parse(Buffer.from(shortLived.split('.')[1], 'base64url').toString()) as { exp: number };
    const read = () => t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set(bearer(shortLived));
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);
    await new Promise((r) => setTimeout(r, exp * 1000 - Date.now() + 50));
    expect((await read()).status).toBe(401);
  });

  it('does not take a forged signature for a token it has already verified', async () => {
    const good = token({ sub: 'alice', roles: ['timeline.reader'] });
    await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set(bearer(good)).expect(200);
    const [header, payload] = good.split('.');
    const forged = `${header}.${payload}.${Buffer.from('forged-signature-bytes-0123456789ab').toString('base64url')}`;
    const res = await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set(bearer(forged));
    expect(res.status).toBe(401);
  });
});

describe('authentication in production mode', () => {
  const secret = 'a-production-secret-of-at-least-32-characters';
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ APP_ENV: 'production', JWT_SECRET: secret, JWT_ISSUER: 'https://idp.example', JWT_AUDIENCE: 'incident-service' });
  });
  afterAll(() => t.close());
  const valid = (claims = {}, options = {}) =>
    token({ roles: [], ...claims }, { issuer: 'https://idp.example', audience: 'incident-service', ...options }, secret);

  it('needs a valid token (any role) for incident REST', async () => {
    expect((await t.http().get('/api/v1/incidents')).status).toBe(401);
    await t.http().get('/api/v1/incidents').set(bearer(valid())).expect(200);
  });

  it('keeps /health open', async () => {
    await t.http().get('/health').expect(200);
  });

  it.each([
    ['a wrong issuer', { issuer: 'https://evil.example' }],
    ['a wrong audience', { audience: 'another-service' }],
  ])('refuses %s', async (_, options) => {
    expect((await t.http().get('/api/v1/incidents').set(bearer(valid({}, options)))).status).toBe(401);
  });

  it('refuses the development secret', async () => {
    const dev = token({}, { issuer: 'https://idp.example', audience: 'incident-service' });
    expect((await t.http().get('/api/v1/incidents').set(bearer(dev))).status).toBe(401);
  });
});

describe('keys removed from the JWKS (production mode, a real JWKS endpoint)', () => {
  /** The identity provider's keys and the set it publishes, which the test rotates. */
  const retiring = { kid: 'rotating-out', algorithm: 'RS256', pair: generateKeyPairSync('rsa', { modulusLength: 2048 }) } as const;
  const current = { kid: 'current', algorithm: 'ES256', pair: generateKeyPairSync('ec', { namedCurve: 'P-256' }) } as const;
  type Key = typeof retiring | typeof current;
  const jwk = ({ kid, algorithm, pair }: Key) => ({ ...pair.publicKey.export({ format: 'jwk' }), kid, alg: algorithm, use: 'sig' });
  let published: Key[] = [retiring, current];
  const jwks = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map(jwk) })));
  // Short for the test; the default is the minute docs/security.md promises.
  const KEY_REMOVAL_MS = 1000;
  let t: TestApp;

  const signed = ({ kid, algorithm, pair }: Key, sub = 'rotation') =>
    sign({ sub, roles: [] }, pair.privateKey, { algorithm, keyid: kid, expiresIn: '1h' });
  const incidents = (jwt: string) => t.http().get('/api/v1/incidents').set(bearer(jwt));
  const myIncidents = (jwt: string) => t.http().post('/api/v1/graphql').set(bearer(jwt)).send({ query: '{ myIncidents { id } }' });

  beforeAll(async () => {
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    t = await startTestApp({ APP_ENV: 'production', JWT_JWKS_URL: url, JWT_KEY_REMOVAL_MS: String(KEY_REMOVAL_MS) });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  it('refuses tokens of a removed key once the removal window has passed, on REST and GraphQL', async () => {
    const old = signed(retiring);
    await incidents(old).expect(200);
    expect((await myIncidents(old)).status).toBe(200);

    published = [current];
    await new Promise((resolve) => setTimeout(resolve, KEY_REMOVAL_MS + 200));

    expect((await incidents(old)).status).toBe(401);
    expect((await myIncidents(old)).status).toBe(401);
    expect((await incidents(signed(retiring, 'fresh-token'))).status).toBe(401);
    await incidents(signed(current)).expect(200);
  });
});

describe('the development secret in production (the built api, as an operator starts it)', () => {
  const dir = tempDir('dev-secret');
  afterAll(() => dir.remove());

  it.each(['JWT_SECRET', 'CURSOR_SECRET'])('refuses to start with %s set to the development secret: one line, exit 1', async (name) => {
    const env = { DATA_DIR: dir.path, APP_ENV: 'production', JWT_SECRET: 'an-operator-secret-that-is-long-enough', [name]: DEVELOPMENT_JWT_SECRET };
    const started = startServer(env, 15_000);
    // Were it to start, it must not outlive the test.
    void started.then((server) => server.child.kill(), () => undefined);
    await expect(started).rejects.toThrow(
      new RegExp(
        `^server exited \\(1\\) before listening:\\nConfiguration error: ${name} is the development secret, which is published in the source \\(anyone can sign with it\\): set a secret of your own with APP_ENV=production\\n?$`,
      ),
    );
  });
});
