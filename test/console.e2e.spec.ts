import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app';
import { launchChromium } from './support/browser';
import { requireConsoleBuild } from './support/console-build';
import { accessibilityProblems, PHONE, signedIn, stepsInBrowser } from './support/console-pages';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

/**
 * Where a screenshot goes: docs/ (the README shows them) only with
 * UPDATE_SCREENSHOTS=1, so that a test run leaves the repository's files as
 * they are; otherwise `scratch`, a directory of this run.
 */
function screenshotPath(name: string, scratch: string): string {
  return join(process.env.UPDATE_SCREENSHOTS === '1' ? join(__dirname, '..', 'docs') : scratch, name);
}

/** A screenshot was written and holds an image (a PNG of some kilobytes). */
const expectScreenshot = (path: string) => expect(statSync(path).size).toBeGreaterThan(10_000);

/**
 * Runs in the page. Passed as a function, not a string: Playwright evaluates a
 * string predicate again on every animation frame with eval, which the
 * console's CSP (script-src 'self') refuses; a function is evaluated once.
 */
/** The lifecycle buttons a page offers, in order. */
const moves = (page: Page) => page.getByRole('region', { name: 'Next step' }).getByRole('button').allTextContents();

const countOfType = ({ type, count }: { type: string; count: number }) =>
  (globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }).document.querySelectorAll(`.timeline li[data-event-type="${type}"]`).length === count;

/**
 * The web console in a real browser (Debian's chromium through playwright-core),
 * against the whole api in-process: what a responder and an auditor do and see.
 * The steps build on each other (one incident, followed through), so they run in order.
 */
describe('the web console in a browser', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let baseURL: string;
  let responder: Page;
  /** The same responder on a second device: sees what happens without reloading. */
  let watcher: Page;
  let incidentId: string;
  /** Opened over REST by an alerting tool's token: nobody holds a role on it. */
  let restIncidentId: string;
  const title = `Checkout latency ${randomUUID().slice(0, 8)}`;
  const dataDir = tempDir('console');

  beforeAll(async () => {
    requireConsoleBuild();
    browser = await launchChromium('console browser tests');
    if (!browser) return;
    t = await startTestApp({}, dataDir.path);
    await t.app.listen(0, '127.0.0.1');
    baseURL = await t.app.getUrl();
    ({ page: responder } = await signedIn(browser, baseURL, { sub: 'alice', clearance: 'confidential', dataAccess: ['pii', 'phi', 'legal_hold'] }));
    ({ page: watcher } = await signedIn(browser, baseURL, { sub: 'alice', clearance: 'confidential', dataAccess: ['pii'] }, PHONE));
    await watcher.locator('[data-link="live"]').waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    dataDir.remove();
  });

  const inBrowser = stepsInBrowser(() => browser);

  inBrowser('signs in as a chosen user onto the list of incidents, and shows their own (empty) incidents', async () => {
    await responder.getByText('None: no incident matching this is open, acknowledged or mitigated.').waitFor();
    await responder.locator('.who').getByText('alice').waitFor();
    await responder.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My incidents' }).click();
    await responder.getByText('You hold no role on any incident').waitFor();
    await responder.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents', exact: true }).click();
    await responder.getByRole('heading', { name: 'Incidents', exact: true }).waitFor();
  });

  inBrowser('declares an incident and opens its page, with the responder as commander, offering exactly the moves possible', async () => {
    await responder.getByRole('link', { name: 'Declare an incident' }).click();
    await responder.getByLabel('Title').fill(title);
    await responder.getByLabel('Severity').selectOption('SEV_1');
    await responder.getByRole('button', { name: 'Declare' }).click();
    await responder.getByRole('heading', { name: title }).waitFor();
    incidentId = /\/incidents\/(INC-[0-9a-f]{8})$/.exec(responder.url())![1];
    expect(await responder.getByTestId('status').textContent()).toBe('open');
    await responder.locator('.facts').getByText('alice').waitFor();
    await responder.locator('.timeline li[data-event-type="im.incident.declare"]').waitFor();
    expect(await moves(responder)).toEqual(['Acknowledge', 'Resolve']);
  });

  inBrowser('shows it live under my incidents in the other browser, whose link opens its page', async () => {
    await watcher.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My incidents' }).click();
    await watcher.locator(`[data-incident="${incidentId}"]`).getByText(title).waitFor({ timeout: 5000 });
    expect(await watcher.evaluate('performance.getEntriesByType("navigation").length')).toBe(1);
    await watcher.locator(`[data-incident="${incidentId}"] a`).click();
    await watcher.getByRole('heading', { name: title }).waitFor();
    await watcher.locator('[data-link="live"]').waitFor();
  });

  inBrowser('acknowledges after a confirmation; then offers mitigate and resolve only, in both browsers, and after mitigating only resolve', async () => {
    await responder.getByRole('button', { name: 'Acknowledge' }).click();
    const dialog = responder.getByRole('dialog');
    await dialog.getByText('Acknowledge this incident?').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await responder.getByTestId('status').textContent()).toBe('open');
    await responder.getByRole('button', { name: 'Acknowledge' }).click();
    await dialog.getByRole('button', { name: 'Yes, acknowledge' }).click();
    await responder.getByTestId('status').getByText('acknowledged').waitFor();
    await watcher.getByTestId('status').getByText('acknowledged').waitFor({ timeout: 5000 });
    await responder.getByRole('button', { name: 'Mitigate' }).waitFor();
    expect(await moves(responder)).toEqual(['Mitigate', 'Resolve']);
    await watcher.getByRole('button', { name: 'Mitigate' }).waitFor({ timeout: 5000 });
    expect(await moves(watcher)).toEqual(['Mitigate', 'Resolve']);

    await responder.getByRole('button', { name: 'Mitigate' }).click();
    await dialog.getByRole('button', { name: 'Yes, mitigate' }).click();
    await responder.getByTestId('status').getByText('mitigated').waitFor();
    expect(await moves(responder)).toEqual(['Resolve']);
    expect(await responder.getByRole('alert').count()).toBe(0);
  });

  inBrowser('lists every incident the caller may see, live, the ones being worked on first: one opened over REST with nobody holding a role too', async () => {
    await watcher.goto('/');
    await watcher.locator('[data-link="live"]').waitFor();
    await watcher.locator(`[data-incident="${incidentId}"]`).waitFor();
    const done = await t.http().post('/api/v1/incidents').set(bearer(token({ sub: 'pager' }))).send({ title: 'Cache warmed up slowly', severity: 'SEV-4' });
    expect((await t.http().post(`/api/v1/incidents/${done.body.id}/resolve`).set(bearer(token({ sub: 'pager' })))).status).toBe(200);
    // Opened last: once the list shows it, it shows the resolution before it too.
    const opened = await t.http().post('/api/v1/incidents').set(bearer(token({ sub: 'pager' }))).send({ title: `Disk full on db-3 ${incidentId}`, severity: 'SEV-2' });
    expect(opened.status).toBe(201);
    restIncidentId = opened.body.id;

    // Without reloading: the open one first, before the (older) mitigated one; the resolved one in its own group after.
    const working = watcher.getByRole('list', { name: 'Incidents being worked on' });
    await working.locator(`[data-incident="${restIncidentId}"]`).waitFor({ timeout: 5000 });
    expect(await working.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-incident')))).toEqual([restIncidentId, incidentId]);
    await watcher.getByRole('list', { name: 'Finished incidents: resolved, closed, canceled or duplicate' }).locator(`[data-incident="${done.body.id}"]`).waitFor({ timeout: 5000 });
    expect(await watcher.evaluate('performance.getEntriesByType("navigation").length')).toBe(1);

    await watcher.getByLabel('Severity').selectOption('SEV-1');
    await watcher.getByRole('list', { name: 'Incidents being worked on' }).locator(`[data-incident="${restIncidentId}"]`).waitFor({ state: 'detached' });
    await watcher.locator(`[data-incident="${incidentId}"]`).waitFor();
    expect(await watcher.locator('.incident-list li').evaluateAll((items) => items.map((li) => li.getAttribute('data-incident')))).toEqual([incidentId]);
    await watcher.getByLabel('Severity').selectOption('');
    await watcher.getByLabel('Status').selectOption('resolved');
    // Only the answer to this filter is ever shown (never the previous filter's rows): once the resolved one is listed, it is alone.
    await watcher.locator(`[data-incident="${done.body.id}"]`).waitFor({ timeout: 5000 });
    expect(await watcher.locator('.incident-list li').evaluateAll((items) => items.map((li) => li.getAttribute('data-incident')))).toEqual([done.body.id]);
    await watcher.getByLabel('Status').selectOption('');
    expect(['incident list (phone)', await accessibilityProblems(watcher)]).toEqual(['incident list (phone)', []]);
    await watcher.getByRole('link', { name: new RegExp(`Disk full on db-3 ${incidentId}`) }).click();
    await watcher.getByTestId('status').getByText('open').waitFor();
    expect(await moves(watcher)).toEqual(['Acknowledge', 'Resolve']);
  });

  inBrowser('leaves out of the list what the reader’s clearance does not cover', async (b) => {
    const secret = await t.http().post('/api/v1/graphql').set(bearer(token({ sub: 'alice', clearance: 'confidential' }))).send({
      query: 'mutation { declareIncident(input: {title: "Payroll export leaked", severity: SEV_1, visibility: "confidential"}) { id } }',
    });
    const secretId = secret.body.data.declareIncident.id as string;
    await responder.goto('/');
    await responder.locator(`[data-incident="${secretId}"]`).waitFor();
    const reader = await signedIn(b, baseURL, { sub: 'carol', roles: ['timeline.reader'], clearance: 'internal' });
    await reader.page.locator(`[data-incident="${restIncidentId}"]`).waitFor();
    expect(await reader.page.locator('main').textContent()).not.toContain('Payroll export leaked');
    // A reader cannot move an incident on, and is told why rather than shown buttons that fail.
    await reader.page.locator(`[data-incident="${incidentId}"] a`).click();
    await reader.page.getByText('Moving the incident on needs the timeline.writer role').waitFor();
    expect(await moves(reader.page)).toEqual([]);
    await reader.context.close();
    await responder.goto(`/incidents/${incidentId}`);
    await responder.getByRole('heading', { name: title }).waitFor();
  });

  inBrowser('says what state the incident is in when a move is refused because someone else moved it first', async () => {
    await watcher.goto(`/incidents/${restIncidentId}`);
    await watcher.getByRole('button', { name: 'Acknowledge' }).click();
    // Meanwhile the incident is resolved elsewhere.
    expect((await t.http().post(`/api/v1/incidents/${restIncidentId}/resolve`).set(bearer(token({ sub: 'pager' })))).status).toBe(200);
    await watcher.getByRole('dialog').getByRole('button', { name: 'Yes, acknowledge' }).click();
    await watcher.getByRole('alert').getByText('Not done: the incident is resolved now').waitFor();
    await watcher.getByTestId('status').getByText('resolved').waitFor();
    expect(await moves(watcher)).toEqual(['Close']);
    await watcher.goto(`/incidents/${incidentId}`);
    await watcher.locator('[data-link="live"]').waitFor();
  });

  inBrowser('adds a note and assigns a role', async () => {
    await responder.getByRole('textbox', { name: 'Note', exact: true }).fill('Rolled back deploy 42');
    await responder.getByRole('button', { name: 'Add note' }).click();
    await responder.locator('.timeline li[data-event-type="im.incident.note"]').getByText('Rolled back deploy 42').waitFor();
    await watcher.locator('.timeline li[data-event-type="im.incident.note"]').getByText('Rolled back deploy 42').waitFor({ timeout: 5000 });
    await responder.getByRole('combobox', { name: /^Role/ }).selectOption('COMMS');
    await responder.getByLabel('Responder').fill('bob');
    await responder.getByRole('button', { name: 'Assign' }).click();
    await responder.locator('.roles').getByText('bob').waitFor();
  });

  inBrowser('shows a note with personal data as [REDACTED] to a reader without access to it, and in full to one with', async (b) => {
    const event = {
      specversion: '1.0',
      id: randomUUID(),
      source: 'im://console-test',
      type: 'im.incident.note',
      subject: `incident/${incidentId}`,
      time: new Date().toISOString(),
      data: { title: 'Customer contact', content: 'Called jane@example.com about order 7' },
      'im.data_class': ['pii'],
      'im.visibility': 'internal',
    };
    const appended = await t.http().post('/api/v1/timeline/events').set(bearer(token({ sub: 'alice' }))).set('content-type', 'application/cloudevents+json').send(event);
    expect(appended.status).toBe(201);

    const reader = await signedIn(b, baseURL, { sub: 'carol', roles: ['timeline.reader'], clearance: 'internal' });
    await reader.page.goto(`/incidents/${incidentId}`);
    const notes = reader.page.locator('.timeline li[data-event-type="im.incident.note"]');
    await notes.getByText('[REDACTED]').first().waitFor();
    expect(await reader.page.locator('.timeline').textContent()).not.toContain('jane@example.com');
    // Live too: the stream redacts for each subscriber.
    await reader.page.locator('[data-link="live"]').waitFor();
    const again = await t.http().post('/api/v1/timeline/events').set(bearer(token({ sub: 'alice' }))).set('content-type', 'application/cloudevents+json').send({ ...event, id: randomUUID(), data: { title: 'Callback', content: 'Phoned jane again' } });
    expect(again.status).toBe(201);
    await watcher.getByText('Phoned jane again').waitFor({ timeout: 5000 });
    await reader.page.waitForFunction(countOfType, { type: 'im.incident.note', count: 3 });
    expect(await reader.page.locator('.timeline').textContent()).not.toContain('Phoned jane');
    await reader.context.close();
    await responder.getByText('Called jane@example.com about order 7').waitFor();
  });

  inBrowser('downloads the timeline as JSON and as Markdown', async () => {
    const [json] = await Promise.all([responder.waitForEvent('download'), responder.getByRole('button', { name: 'Download JSON' }).click()]);
    expect(json.suggestedFilename()).toBe(`${incidentId}-timeline.json`);
    const events = JSON.parse(readFileSync((await json.path())!, 'utf8')) as { type: string }[];
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['im.incident.declare', 'im.incident.ack', 'im.incident.note']));
    const [markdown] = await Promise.all([responder.waitForEvent('download'), responder.getByRole('button', { name: 'Download Markdown' }).click()]);
    expect(markdown.suggestedFilename()).toBe(`${incidentId}-timeline.md`);
    const text = readFileSync((await markdown.path())!, 'utf8');
    expect(text).toContain(`Incident: ${incidentId}\n\nTitle: ${title}\n\nSeverity: SEV-1\n\nStatus: mitigated\n`);
    expect(text).toContain(`--key ${t.config.notifications.consoleUrl}/api/v1/ledger/keys`);
  });

  inBrowser('filters the timeline', async () => {
    const types = () => responder.locator('.timeline li').evaluateAll((items) => items.map((li) => li.getAttribute('data-event-type')));
    expect(await types()).toContain('im.incident.declare');
    await responder.getByText('Filter events').click();
    await responder.getByRole('combobox', { name: /^Show/ }).selectOption('im.incident.note');
    await responder.getByRole('button', { name: 'Filter' }).click();
    await responder.waitForFunction(countOfType, { type: 'im.incident.declare', count: 0 });
    expect(await types()).toEqual(['im.incident.note', 'im.incident.note', 'im.incident.note']);
    await responder.getByRole('combobox', { name: /^Show/ }).selectOption('');
    await responder.getByRole('button', { name: 'Filter' }).click();
  });

  inBrowser('saves notification settings', async () => {
    await responder.getByRole('link', { name: 'Settings' }).click();
    await responder.getByRole('checkbox', { name: 'SEV-4' }).setChecked(false);
    await responder.getByRole('checkbox', { name: 'Hold notifications during quiet hours' }).check();
    await responder.getByRole('button', { name: 'Save settings' }).click();
    await responder.getByRole('status').getByText('Saved.').waitFor();
    await responder.reload();
    await responder.getByLabel('Time zone').waitFor();
    expect(await responder.getByRole('checkbox', { name: 'SEV-4' }).isChecked()).toBe(false);
  });

  inBrowser('works on a 390-px-wide phone: nothing wider than the screen, the navigation on one line, every control reachable', async (b) => {
    const phone = await signedIn(b, baseURL, { sub: 'alice' }, PHONE);
    const { page } = phone;
    for (const path of ['/', '/mine', '/declare', `/incidents/${incidentId}`, '/settings', '/graphql/playground']) {
      await page.goto(path);
      await page.locator('main h1').waitFor();
      expect([path, await page.evaluate('document.documentElement.scrollWidth')]).toEqual([path, PHONE.width]);
      const tops = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((links) => links.map((a) => a.getBoundingClientRect().top));
      expect([path, new Set(tops).size]).toEqual([path, 1]);
    }
    await page.goto('/');
    const declare = (await page.getByRole('link', { name: 'Declare an incident' }).boundingBox())!;
    const filters = (await page.getByRole('form', { name: 'Filter incidents' }).boundingBox())!;
    expect(filters.y - (declare.y + declare.height)).toBeGreaterThanOrEqual(8);

    // The first screen, unscrolled: status, severity, the next step and the newest events.
    await page.goto(`/incidents/${incidentId}`);
    await page.locator('.timeline li').nth(2).waitFor();
    const firstScreen = async (name: string, box: Promise<{ y: number; height: number } | null>) => {
      const at = (await box)!;
      expect([name, at.y + at.height <= PHONE.height]).toEqual([name, true]);
    };
    await firstScreen('status', page.getByTestId('status').boundingBox());
    await firstScreen('severity', page.locator('.facts .badge').boundingBox());
    await firstScreen('next step', page.getByRole('button', { name: 'Resolve' }).boundingBox());
    await firstScreen('newest event', page.locator('.timeline li').first().boundingBox());
    // The filters are folded away until asked for; then each date field shows a whole date and time.
    expect(await page.getByLabel('From').isVisible()).toBe(false);
    await page.getByText('Filter events').click();
    for (const field of ['From', 'Until']) {
      const box = (await page.getByLabel(field).boundingBox())!;
      expect([field, box.width]).toEqual([field, expect.any(Number)]);
      expect([field, box.width >= 220]).toEqual([field, true]);
    }
    expect(['incident page (phone)', await accessibilityProblems(page)]).toEqual(['incident page (phone)', []]);
    await page.getByText('Filter events').click();
    const shot = screenshotPath('console-incident-phone.png', dataDir.path);
    await page.screenshot({ path: shot, fullPage: false });
    expectScreenshot(shot);
    await phone.context.close();
  });

  inBrowser('has no serious or critical accessibility problem on any view (axe-core)', async (b) => {
    const fresh = await b.newContext({ baseURL });
    const signIn = await fresh.newPage();
    await signIn.goto('/');
    await signIn.getByLabel('User').waitFor();
    expect(['sign-in', await accessibilityProblems(signIn)]).toEqual(['sign-in', []]);
    await fresh.close();
    for (const path of ['/', '/mine', '/declare', '/settings', `/incidents/${incidentId}`]) {
      await responder.goto(path);
      await responder.locator('main h1').waitFor();
      // The views that follow a stream are checked once it is live (the indicator is part of the page).
      if (path === '/' || path === '/mine' || path.startsWith('/incidents/')) await responder.locator('[data-link="live"]').waitFor();
      expect([path, await accessibilityProblems(responder)]).toEqual([path, []]);
    }
    await responder.getByRole('button', { name: 'Resolve' }).click();
    expect(['confirmation dialog', await accessibilityProblems(responder)]).toEqual(['confirmation dialog', []]);
    await responder.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  });

  inBrowser('serves the GraphQL playground from this origin only (no CDN), running queries with the sign-in’s token', async () => {
    const elsewhere: string[] = [];
    const listener = (request: { url(): string }) => void (new URL(request.url()).origin !== new URL(baseURL).origin && elsewhere.push(request.url()));
    responder.on('request', listener);
    await responder.goto('/graphql/playground');
    await responder.getByRole('heading', { name: 'GraphQL playground' }).waitFor();
    await responder.getByLabel('Query').fill(`{ incidentStatus(id: "${incidentId}") { id status } }`);
    await responder.getByRole('button', { name: 'Run' }).click();
    await responder.getByTestId('answer').getByText(`"status": "MITIGATED"`).waitFor();
    await responder.getByText('Schema').click();
    await responder.getByText('type Query {').waitFor();
    expect(['playground', await accessibilityProblems(responder)]).toEqual(['playground', []]);
    responder.off('request', listener);
    expect(elsewhere).toEqual([]);
  });

  inBrowser('measures the time from a note written in one browser to its appearance in the other (a figure, not a limit)', async () => {
    await responder.goto(`/incidents/${incidentId}`);
    await watcher.goto(`/incidents/${incidentId}`);
    await watcher.locator('[data-link="live"]').waitFor();
    const samples: number[] = [];
    for (let i = 0; i < 20; i++) {
      const text = `Measured note ${i} ${randomUUID().slice(0, 6)}`;
      await responder.getByRole('textbox', { name: 'Note', exact: true }).fill(text);
      const start = performance.now();
      await responder.getByRole('button', { name: 'Add note' }).click();
      await watcher.getByText(text).waitFor({ timeout: 10_000 });
      samples.push(performance.now() - start);
    }
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)].toFixed(0);
    console.log(`console write-to-appearance over ${samples.length} notes: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`);
  });

  inBrowser('shows a lost connection while the service restarts, then catches up by itself with what was written meanwhile', async () => {
    await watcher.goto(`/incidents/${incidentId}`);
    await watcher.locator('[data-link="live"]').waitFor();
    const port = new URL(baseURL).port;
    await t.app.close();
    await watcher.locator('[data-link="lost"]').getByText('Connection lost: reconnecting…').waitFor({ timeout: 10_000 });
    t = await startTestApp({}, dataDir.path);
    await t.app.listen(Number(port), '127.0.0.1');
    const note = { query: 'mutation($id: ID!) { addNote(incidentId: $id, content: "Written while you were away") { id } }', variables: { id: incidentId } };
    expect((await t.http().post('/api/v1/graphql').set(bearer(token({ sub: 'alice' }))).send(note)).body.errors).toBeUndefined();
    await watcher.locator('[data-link="live"]').waitFor({ timeout: 20_000 });
    await watcher.getByText('Written while you were away').waitFor({ timeout: 5000 });
    expect(await watcher.evaluate('performance.getEntriesByType("navigation").length')).toBe(1);
  });

  inBrowser('shows the incident page as a responder sees it (docs/console-incident.png)', async () => {
    await responder.goto(`/incidents/${incidentId}`);
    await responder.locator('.timeline li').nth(3).waitFor();
    const shot = screenshotPath('console-incident.png', dataDir.path);
    await responder.screenshot({ path: shot, fullPage: true });
    expectScreenshot(shot);
  });
});
