import { buildClientSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { ALL_OPERATIONS } from '../apps/console/src/api/documents';
import { startTestApp, type TestApp } from './support/app';
import { requireConsoleBuild } from './support/console-build';
import { bearer, token } from './support/tokens';

/** What the web console needs from the api besides the public APIs: its files, its sign-in routes, and a schema its operations fit. */
describe('the console as the api serves it', () => {
  let t: TestApp;
  beforeAll(async () => {
    requireConsoleBuild();
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('serves index.html at / and at each console path (the GraphQL playground too), compressed, with a CSP that allows only this origin', async () => {
    for (const path of ['/', '/mine', '/declare', '/settings', '/incidents/INC-0000abcd', '/signin/callback', '/graphql/playground', '/oncall', '/oncall/services', '/oncall/policies', '/oncall/schedules/new', '/oncall/schedules/3f9c2a7e5b1d8c04']) {
      const page = await t.http().get(path).set('accept-encoding', 'gzip');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-encoding']).toBe('gzip');
      expect(page.text).toContain('<div id="app"></div>');
      expect(page.headers['content-security-policy']).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
    }
    const script = /src="(\/assets\/[^"]+\.js)"/.exec((await t.http().get('/')).text)![1];
    const asset = await t.http().get(script);
    expect(asset.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  it('loads at most 200 KB of JavaScript, compressed, on first load (the sign-in code is fetched only when used)', async () => {
    const page = (await t.http().get('/')).text;
    const scripts = [...page.matchAll(/<(?:script|link)[^>]+(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    let bytes = 0;
    for (const script of scripts) {
      const answer = await t.http().get(script).set('accept-encoding', 'gzip').buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect(answer.headers['content-encoding']).toBe('gzip');
      bytes += Number(answer.headers['content-length'] ?? (answer.body as Buffer).length);
    }
    console.log(`console first load: ${scripts.length} script(s), ${(bytes / 1024).toFixed(1)} KB of JavaScript gzip-compressed`);
    expect(bytes).toBeLessThanOrEqual(200 * 1024);
  });

  it('leaves every other path to its route: the API answers JSON as before, unknown paths 404 {error, status}', async () => {
    expect((await t.http().get('/api/v1/incidents')).headers['content-type']).toContain('application/json');
    expect((await t.http().get('/health')).body.status).toBe('healthy');
    for (const path of ['/api/v1/nothing', '/assets/missing.js', '/incidents', '/declare/x']) {
      const answer = await t.http().get(path);
      expect(answer.status).toBe(404);
      expect(answer.body.status).toBe(404);
    }
  });

  it('tells the console how to sign in: development offers "sign in as", no OpenID client is configured', async () => {
    const answer = await t.http().get('/api/v1/console/config');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ environment: 'development', development_sign_in: true, oidc: null });
  });

  it('mints a development token with the chosen user, roles, clearance and data access, which the api accepts', async () => {
    const minted = await t
      .http()
      .post('/api/v1/console/development-token')
      .send({ sub: 'dana', roles: ['timeline.reader'], clearance: 'restricted', data_access: ['pii'] });
    expect(minted.status).toBe(201);
    const claims = JSON.parse(Buffer.from(minted.body.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'dana', roles: ['timeline.reader'], clearance: 'restricted', data_access: ['pii'] });
    expect(Date.parse(minted.body.expires_at)).toBe(claims.exp * 1000);
    const graphql = await t.http().post('/api/v1/graphql').set(bearer(minted.body.token)).send({ query: '{ myIncidents { id } }' });
    expect(graphql.body).toEqual({ data: { myIncidents: [] } });
  });

  it.each([
    [{ roles: ['timeline.reader'] }, 'sub must be a non-empty string'],
    [{ sub: 'x', clearance: 'top-secret' }, 'clearance must be one of public, internal, restricted, confidential'],
    [{ sub: 'x', data_access: ['dna'] }, 'data_access must be an array of pii, phi, legal_hold'],
    [{ sub: 'x', admin: true }, 'admin is not a sign-in field'],
  ])('refuses the claims %j with 400 and why', async (body, message) => {
    const answer = await t.http().post('/api/v1/console/development-token').send(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.stringContaining(message), status: 400 });
  });

  it('validates every GraphQL operation the console sends against the schema the server emits', async () => {
    const introspection = await t.http().post('/api/v1/graphql').set(bearer(token())).send({ query: getIntrospectionQuery() });
    const schema = buildClientSchema(introspection.body.data);
    for (const operation of ALL_OPERATIONS) expect(validate(schema, parse(operation.source)).map((e) => e.message)).toEqual([]);
  });
});

describe('development mode with a configured JWT_SECRET (APP_ENV forgotten)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ JWT_SECRET: 's'.repeat(40) });
  });
  afterAll(() => t.close());

  it('mints no token with the configured secret for whoever asks, saying why, and offers no "sign in as"', async () => {
    const answer = await t.http().post('/api/v1/console/development-token').send({ sub: 'mallory', roles: ['incidents.admin'] });
    // Before the fix this answered 201 with a token the service accepted: an unauthenticated mint of any role.
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: expect.stringContaining('neither JWT_SECRET nor JWT_JWKS_URL set'), status: 403 });
    expect((await t.http().get('/api/v1/console/config')).body).toMatchObject({ environment: 'development', development_sign_in: false });
  });
});

describe('the console in production', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      APP_ENV: 'production',
      JWT_SECRET: 's'.repeat(40),
      JWT_ISSUER: 'https://login.example.com/realms/ops',
      JWT_AUDIENCE: 'incident-api',
      CONSOLE_OIDC_CLIENT_ID: 'incident-console',
    });
  });
  afterAll(() => t.close());

  it('refuses to mint development tokens, saying why', async () => {
    const answer = await t.http().post('/api/v1/console/development-token').send({ sub: 'mallory', roles: ['incidents.admin'] });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: expect.stringContaining('only in development mode'), status: 403 });
  });

  it('offers OpenID Connect at the issuer, and lets the console call only it besides this origin', async () => {
    expect((await t.http().get('/api/v1/console/config')).body).toEqual({
      environment: 'production',
      development_sign_in: false,
      oidc: { issuer: 'https://login.example.com/realms/ops', client_id: 'incident-console', audience: 'incident-api' },
    });
    const csp = (await t.http().get('/')).headers['content-security-policy'];
    expect(csp).toContain("connect-src 'self' https://login.example.com;");
  });
});
