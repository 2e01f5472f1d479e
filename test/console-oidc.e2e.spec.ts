import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app';
import { launchChromium } from './support/browser';
import { requireConsoleBuild } from './support/console-build';

const CLIENT_ID = 'incident-console';
// A resource indicator is an absolute URI (RFC 8707).
const AUDIENCE = 'https://incidents.example.com/api';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Production sign-in: OpenID Connect authorization code with PKCE against a real provider (oidc-provider) the test starts. */
describe('the console signs in with OpenID Connect in production', () => {
  let browser: Browser | undefined;
  let provider: ChildProcess;
  let t: TestApp;
  let baseURL: string;
  let issuer: string;

  beforeAll(async () => {
    requireConsoleBuild();
    browser = await launchChromium('console OpenID Connect test');
    if (!browser) return;
    const port = await freePort();
    baseURL = `http://127.0.0.1:${port}`;
    provider = spawn(process.execPath, [join(__dirname, 'support/oidc-provider.mjs')], {
      env: { ...process.env, REDIRECT_URI: `${baseURL}/signin/callback`, AUDIENCE, CLIENT_ID },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    ({ issuer } = await new Promise<{ issuer: string }>((resolve) => provider.stdout!.once('data', (line: Buffer) => resolve(JSON.parse(line.toString())))));
    t = await startTestApp({
      APP_ENV: 'production',
      JWT_JWKS_URL: `${issuer}/jwks`,
      JWT_ISSUER: issuer,
      JWT_AUDIENCE: AUDIENCE,
      CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
    });
    await t.app.listen(port, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    provider?.kill();
  });

  it('signs in at the provider (code + PKCE), comes back signed in, and the api accepts the access token', async () => {
    if (!browser) return console.warn('SKIPPED (no browser): OpenID Connect sign-in');
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    await page.goto('/');
    expect(await page.getByText('Sign in as (development)').count()).toBe(0);
    const authorization = page.waitForRequest((request) => request.url().startsWith(`${issuer}/auth`));
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    const authorize = new URL((await authorization).url());
    await page.locator('input[name="login"]').fill('oscar');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Incidents', exact: true }).waitFor();
    expect(page.url()).toBe(`${baseURL}/`);
    await page.locator('.who').getByText('oscar').waitFor();
    await page.locator('[data-link="live"]').waitFor();
    // PKCE was used, and the api took the provider's token for a declare.
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    await page.getByRole('link', { name: 'Declare an incident' }).click();
    await page.getByLabel('Title').fill('Signed in through the provider');
    await page.getByRole('button', { name: 'Declare' }).click();
    await page.getByRole('heading', { name: 'Signed in through the provider' }).waitFor();
    await context.close();
  }, 60_000);
});
