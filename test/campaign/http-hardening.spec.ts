import { sign } from 'jsonwebtoken';
import { startServer } from '../support/server-process';
import { tempDir } from '../support/temp-dir';
import { startTestApp, type TestApp } from '../support/app';

jest.setTimeout(60_000);

describe('security headers and CORS', () => {
  let open: TestApp;
  let withCors: TestApp;
  beforeAll(async () => {
    open = await startTestApp();
    withCors = await startTestApp({ CORS_ORIGINS: 'https://dashboard.example.com, http://localhost:5173' });
  });
  afterAll(async () => {
    await open.close();
    await withCors.close();
  });

  it('sends a locked-down policy with every API answer, errors included', async () => {
    for (const res of [await open.http().get('/api/v1/incidents'), await open.http().get('/api/v1/nothing-here')]) {
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('forbids framing in one voice (X-Frame-Options DENY with frame-ancestors none) on the API, the console and the docs pages', async () => {
    for (const path of ['/api/v1/incidents', '/api/v1/nothing-here', '/', '/incidents/INC-00000000', '/api/v1/docs', '/api/v1/graphql']) {
      const res = await open.http().get(path).set('accept', 'text/html');
      expect([path, res.headers['x-frame-options']]).toEqual([path, 'DENY']);
      expect([path, res.headers['content-security-policy']]).toEqual([path, expect.stringMatching(/frame-ancestors 'none'/)]);
    }
  });

  it('gives the development HTML pages a policy that allows only their own inline script', async () => {
    const docs = await open.http().get('/api/v1/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-security-policy']).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
  });

  it('answers no cross-origin request unless CORS_ORIGINS lists the origin', async () => {
    const preflight = (t: TestApp, origin: string) =>
      t.http().options('/api/v1/graphql').set({ origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' });
    expect((await preflight(open, 'https://dashboard.example.com')).headers['access-control-allow-origin']).toBeUndefined();
    const allowed = await preflight(withCors, 'https://dashboard.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://dashboard.example.com');
    expect(allowed.headers['access-control-allow-headers']).toMatch(/authorization/);
    expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
    expect((await preflight(withCors, 'https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    const simple = await withCors.http().get('/api/v1/incidents').set({ origin: 'http://localhost:5173' });
    expect(simple.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('refuses a CORS_ORIGINS entry that is not an origin', async () => {
    await expect(startTestApp({ CORS_ORIGINS: '*' })).rejects.toThrow(/CORS_ORIGINS must list origins/);
  });
});

describe('structured logs (the built server, production mode)', () => {
  const secret = 'campaign-secret-that-must-never-appear-in-a-log';
  const dir = tempDir('campaign-logs');
  afterAll(() => dir.remove());

  it('writes one JSON object per line, with a request id on every request, and never a credential', async () => {
    const server = await startServer({ DATA_DIR: dir.path, APP_ENV: 'production', JWT_SECRET: secret });
    const good = sign({ sub: 'logger-test', roles: ['timeline.reader'] }, secret, { algorithm: 'HS256', expiresIn: '1h' });
    const forged = sign({ sub: 'mallory', roles: ['timeline.writer'] }, 'not-the-secret-but-long-enough-to-sign', { expiresIn: '1h' });
    const traced = await fetch(`${server.url}/api/v1/incidents`, { headers: { authorization: `Bearer ${good}`, 'x-request-id': 'trace-abc-123' } });
    expect(traced.headers.get('x-request-id')).toBe('trace-abc-123');
    const generated = await fetch(`${server.url}/api/v1/incidents`, { headers: { authorization: `Bearer ${forged}`, 'x-request-id': 'bad id with spaces and {braces}' } });
    expect(generated.status).toBe(401);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await fetch(`${server.url}/api/v1/timeline/events`, { method: 'POST', headers: { authorization: `Bearer ${good}`, 'content-type': 'application/json' }, body: '{"broken json' });
    server.child.kill('SIGTERM');
    await server.exited;

    const lines = server.output().split('\n').filter((line) => line.trim() !== '');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.every((r) => typeof r.level === 'string' && typeof r.time === 'string' && typeof r.msg === 'string')).toBe(true);
    const requests = records.filter((r) => r.msg === 'request completed');
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => typeof r.request_id === 'string' && typeof r.status === 'number' && typeof r.duration_ms === 'number')).toBe(true);
    expect(requests.find((r) => r.request_id === 'trace-abc-123')).toMatchObject({ method: 'GET', url: '/api/v1/incidents', status: 200, sub: 'logger-test' });
    expect(requests.find((r) => r.request_id === generated.headers.get('x-request-id'))).toMatchObject({ status: 401 });
    const everything = lines.join('\n');
    for (const secretText of [secret, good, forged, good.split('.')[2], 'Bearer']) expect(everything).not.toContain(secretText);
  });

  it('keeps the start and stop lines at LOG_LEVEL=warn, and drops the access lines', async () => {
    const quiet = tempDir('campaign-logs-warn');
    const server = await startServer({ DATA_DIR: quiet.path, LOG_LEVEL: 'warn' });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/listening on http/);
    expect(server.output()).toMatch(/Shut down cleanly/);
    expect(server.output()).not.toMatch(/request completed/);
    quiet.remove();
  });
});
