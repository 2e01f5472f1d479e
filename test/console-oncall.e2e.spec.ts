import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app';
import { launchChromium } from './support/browser';
import { requireConsoleBuild } from './support/console-build';
import { noProblems, PHONE, signedIn, stepsInBrowser } from './support/console-pages';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

/**
 * The console's on-call views in a real browser (Debian's chromium through
 * playwright-core), against the whole api in-process: an oncall.admin sets up
 * a schedule, a policy and a service through the forms on a desktop; a
 * responder on a phone sees their shifts and takes one; every view passes axe.
 * The steps build on each other, so they run in order.
 */
describe('the console’s on-call views in a browser', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let baseURL: string;
  let admin: Page;
  let responder: { context: BrowserContext; page: Page };
  const tag = randomUUID().slice(0, 6);
  const scheduleName = `Primary ${tag}`;
  const policyName = `Wake primary ${tag}`;
  const serviceName = `Checkout ${tag}`;
  let scheduleId: string;
  const dataDir = tempDir('console-oncall');
  const ADMIN_ROLES = ['timeline.writer', 'timeline.reader', 'oncall.admin'];
  const api = () => bearer(token({ sub: 'olga', roles: ['oncall.admin'] }));

  beforeAll(async () => {
    requireConsoleBuild();
    browser = await launchChromium('console on-call browser tests');
    if (!browser) return;
    t = await startTestApp({}, dataDir.path);
    await t.app.listen(0, '127.0.0.1');
    baseURL = await t.app.getUrl();
    ({ page: admin } = await signedIn(browser, baseURL, { sub: 'olga', roles: ADMIN_ROLES }));
    responder = await signedIn(browser, baseURL, { sub: 'rhea' }, PHONE);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    dataDir.remove();
  });

  const inBrowser = stepsInBrowser(() => browser);


  /** Midnight of a day from today in the browser's (this process's) time zone, as a datetime-local field holds it. */
  const localDay = (days: number, hour = 0) => {
    const d = new Date();
    const at = new Date(d.getFullYear(), d.getMonth(), d.getDate() + days, hour);
    const pad = (n: number) => String(n).padStart(2, '0');
    return { input: `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:00`, date: at };
  };

  inBrowser('an admin’s bad time zone is refused beside the time zone field, in words', async () => {
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'On call' }).click();
    await admin.getByRole('heading', { name: 'On call', exact: true }).waitFor();
    await admin.getByRole('link', { name: 'New schedule' }).click();
    await admin.getByLabel('Name', { exact: true }).fill(scheduleName);
    const zone = admin.getByLabel(/^Time zone/);
    await zone.fill('Mars/Olympus');
    await admin.getByLabel('First hand-off (your time)').fill(localDay(0).input);
    await admin.getByLabel('Hand off every').fill('1');
    await admin.getByLabel('Unit').selectOption('days');
    await admin.getByLabel('Who, in rotation order (comma-separated)').fill('rhea, olga');
    await admin.getByRole('button', { name: 'Create schedule' }).click();

    // The field says what is wrong with it (its description is the error), and the error stands right under it.
    await admin.getByRole('alert').getByText('time_zone must be an IANA time zone name, e.g. Europe/Berlin').waitFor();
    expect(await zone.getAttribute('aria-invalid')).toBe('true');
    const error = admin.locator(`#${await zone.getAttribute('aria-describedby')}`);
    expect(await error.textContent()).toBe('That was not accepted: time_zone must be an IANA time zone name, e.g. Europe/Berlin.');
    const [field, message] = [(await zone.boundingBox())!, (await error.boundingBox())!];
    expect(message.y - (field.y + field.height)).toBeLessThan(24);
    expect(await admin.getByRole('alert').count()).toBe(1);
    await noProblems(admin, 'schedule form with an error');
    expect(admin.url()).toMatch(/\/oncall\/schedules\/new$/);
  });

  inBrowser('an admin creates the schedule and sees its two-week picture, with every shift in its table', async () => {
    await admin.getByLabel(/^Time zone/).fill('Europe/Berlin');
    await admin.getByRole('button', { name: 'Create schedule' }).click();
    await admin.getByRole('heading', { name: scheduleName }).waitFor();
    scheduleId = /\/oncall\/schedules\/([^/]+)$/.exec(admin.url())![1];

    const picture = admin.getByRole('img', { name: /^Final shifts for two weeks/ });
    await picture.waitFor();
    const summary = (await picture.getAttribute('aria-label'))!;
    expect(summary).toMatch(/rhea \d+(\.\d)? hours in 7 shift\(s\)/);
    expect(summary).toMatch(/olga \d+(\.\d)? hours in 7 shift\(s\)/);
    expect(await admin.locator('.chart-row .chart-user').allTextContents()).toEqual(['rhea', 'olga']);
    expect(await admin.locator('.chart-row').nth(1).locator('rect.chart-bar').count()).toBe(7);

    await admin.getByText('The shifts as a table').click();
    const rows = admin.getByRole('table', { name: 'Final shifts, two weeks' }).locator('tbody tr');
    const { from, to } = { from: localDay(0).date, to: localDay(14).date };
    const shifts = (await t.http().get(`/api/v1/schedules/${scheduleId}/shifts?from=${from.toISOString()}&to=${to.toISOString()}`).set(api())).body.shifts as { user: string }[];
    expect(shifts).toHaveLength(14);
    expect(await rows.count()).toBe(14);
    expect((await rows.locator('td:first-child').allTextContents())).toEqual(shifts.map((s) => s.user));
    await noProblems(admin, 'schedule page (admin)');
  });

  inBrowser('an admin creates an escalation policy paging the schedule, then a service with it', async () => {
    await admin.goto('/oncall');
    await admin.getByRole('link', { name: 'Escalation policies' }).click();
    await admin.getByRole('button', { name: 'New escalation policy' }).click();
    const form = admin.getByRole('form', { name: 'New escalation policy' });
    await form.getByLabel('Name', { exact: true }).fill(policyName);
    await form.getByLabel('Page (target 1)').selectOption('schedule');
    await form.getByLabel('Schedule', { exact: true }).selectOption({ label: scheduleName });
    await form.getByLabel(/^Seconds to wait/).fill('300');
    await form.getByRole('button', { name: 'Add a step' }).click();
    await form.getByRole('group', { name: 'Step 2' }).getByLabel('Person (user id)').fill('olga');
    await noProblems(admin, 'policy form');
    await form.getByRole('button', { name: 'Create escalation policy' }).click();
    const policy = admin.locator(`[data-item="${policyName}"]`);
    await policy.getByText(`Page whoever is on call in ${scheduleName}; after 300 s without an acknowledgement, the next step.`).waitFor();
    await policy.getByText('Page olga; after 600 s without an acknowledgement, the end of the round.').waitFor();
    await noProblems(admin, 'policies (admin)');

    await admin.getByRole('link', { name: 'On call' }).first().click();
    await admin.getByRole('link', { name: 'Services' }).click();
    await admin.getByRole('button', { name: 'New service' }).click();
    const serviceForm = admin.getByRole('form', { name: 'New service' });
    await serviceForm.getByLabel('Name', { exact: true }).fill(serviceName);
    await serviceForm.getByLabel('Escalation policy').selectOption({ label: policyName });
    await serviceForm.getByRole('button', { name: 'Create service' }).click();
    await admin.locator(`[data-item="${serviceName}"]`).getByText(policyName).waitFor();
    await noProblems(admin, 'services (admin)');

    const services = (await t.http().get('/api/v1/services').set(api())).body.items as { name: string; escalation_policy_id: string }[];
    const policies = (await t.http().get('/api/v1/escalation-policies').set(api())).body.items as { id: string; name: string; steps: unknown[] }[];
    const created = policies.find((p) => p.name === policyName)!;
    expect(created.steps).toEqual([
      { delay_seconds: 300, targets: [{ type: 'schedule', id: scheduleId }] },
      { delay_seconds: 600, targets: [{ type: 'user', id: 'olga' }] },
    ]);
    expect(services.find((s) => s.name === serviceName)?.escalation_policy_id).toBe(created.id);
  });

  inBrowser('an admin sees who is on call now and next in the schedule', async () => {
    await admin.goto('/oncall');
    const row = admin.locator(`[data-schedule="${scheduleName}"]`);
    await row.getByTestId('now').getByText('rhea').waitFor();
    expect(await row.getByTestId('next').textContent()).toMatch(/^olga from /);
    await noProblems(admin, 'on call (admin)');
  });

  inBrowser('a responder on a phone sees their shifts, reads the configuration without forms, and takes an override', async () => {
    const { page } = responder;
    for (const path of ['/oncall', '/oncall/services', '/oncall/policies', `/oncall/schedules/${scheduleId}`]) {
      await page.goto(path);
      await page.locator('main h1').waitFor();
      // Every section loaded (several may be loading at once, which a single locator's wait refuses as ambiguous).
      const loading = page.locator('main').getByText('Loading…');
      while ((await loading.count()) > 0) await page.waitForTimeout(50);
      expect([path, await page.evaluate('document.documentElement.scrollWidth')]).toEqual([path, PHONE.width]);
      const tops = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((links) => links.map((a) => a.getBoundingClientRect().top));
      expect([path, new Set(tops).size]).toEqual([path, 1]);
      await noProblems(page, `${path} (responder, phone)`);
    }
    // Read only: no button that the api would refuse.
    await page.goto('/oncall/services');
    await page.getByText('Changing these needs the oncall.admin role').waitFor();
    expect(await page.getByRole('button', { name: /New service|Edit|Delete/ }).count()).toBe(0);

    await page.goto('/oncall');
    const mine = page.getByRole('list', { name: 'My shifts in the next 7 days' });
    await mine.getByRole('link', { name: scheduleName }).first().waitFor();
    await mine.getByRole('link', { name: scheduleName }).first().click();
    await page.getByRole('heading', { name: scheduleName }).waitFor();
    await page.getByRole('heading', { name: 'Layers' }).waitFor();
    expect(await page.getByRole('form', { name: 'Edit the schedule' }).count()).toBe(0);

    // Tomorrow is olga's day: rhea takes 09:00 to 17:00 of it.
    expect(await page.getByRole('textbox', { name: 'Who', exact: true }).getAttribute('readonly')).not.toBeNull();
    await page.getByLabel('From (your time)').fill(localDay(1, 9).input);
    await page.getByLabel('Until (your time)').fill(localDay(1, 17).input);
    await page.getByRole('button', { name: 'Take this shift' }).click();
    await page.getByRole('status').getByText('You took the shift.').waitFor();
    await page.locator('[data-override-user="rhea"]').waitFor();
    const at = new Date(localDay(1, 10).date).toISOString();
    expect((await t.http().get(`/api/v1/schedules/${scheduleId}/oncall?at=${at}`).set(api())).body.user).toBe('rhea');
    await page.getByRole('img', { name: /rhea \d+(\.\d)? hours in 8 shift\(s\)/ }).waitFor();
    await noProblems(page, 'schedule page after an override (responder, phone)');

    // An end before the start is refused beside the end.
    await page.getByLabel('Until (your time)').fill(localDay(1, 8).input);
    await page.getByRole('button', { name: 'Take this shift' }).click();
    const until = page.getByLabel('Until (your time)');
    await page.getByRole('alert').getByText('end must be after start').waitFor();
    expect(await page.locator(`#${await until.getAttribute('aria-describedby')}`).textContent()).toBe('That was not accepted: end must be after start.');
  });

  inBrowser('a responder gives back the shift they took', async () => {
    const { page } = responder;
    await page.getByRole('button', { name: /^Delete the override of rhea/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, delete it' }).click();
    await page.locator('[data-override-user="rhea"]').waitFor({ state: 'detached' });
    const at = new Date(localDay(1, 10).date).toISOString();
    expect((await t.http().get(`/api/v1/schedules/${scheduleId}/oncall?at=${at}`).set(api())).body.user).toBe('olga');
  });

  const declare = async (title: string, services: string[] = []) => {
    const answer = await t.http().post('/api/v1/graphql').set(bearer(token({ sub: 'olga' }))).send({
      query: 'mutation($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }',
      variables: { input: { title, severity: 'SEV_2', services } },
    });
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data.declareIncident.id as string;
  };

  inBrowser('a page’s link (/incidents/<id>?ack=1) acknowledges with one tap, no question asked', async () => {
    const id = await declare(`Paged ${tag}`);
    const { page } = responder;
    await page.goto(`/incidents/${id}?ack=1`);
    await page.getByTestId('status').getByText('open').waitFor();
    await page.getByRole('region', { name: 'Next step' }).getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByTestId('status').getByText('acknowledged').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('');
  });

  inBrowser('cancels an incident and marks another a duplicate from the incident page', async () => {
    const original = await declare(`Original ${tag}`);
    const copy = await declare(`Copy ${tag}`);
    const noise = await declare(`Noise ${tag}`);
    await admin.goto(`/incidents/${noise}`);
    await admin.getByRole('button', { name: 'Cancel incident' }).click();
    await noProblems(admin, 'cancel dialog');
    await admin.getByRole('dialog').getByRole('button', { name: 'Yes, cancel the incident' }).click();
    await admin.getByTestId('status').getByText('canceled').waitFor();

    await admin.goto(`/incidents/${copy}`);
    await admin.getByRole('button', { name: 'Mark duplicate' }).click();
    await admin.getByRole('dialog').getByLabel('Duplicate of (incident id)').fill(original);
    await admin.getByRole('dialog').getByRole('button', { name: 'Mark duplicate' }).click();
    await admin.getByTestId('status').getByText('duplicate').waitFor();
    expect(await admin.getByRole('button', { name: /Cancel incident|Mark duplicate/ }).count()).toBe(0);
  });

  /**
   * Needs IncidentMobileView.escalation and escalateIncident (the paging
   * work): until they are in the schema the escalation card shows the api's
   * refusal, and this fails saying so.
   */
  inBrowser('shows an incident’s escalation (policy, step, round, who is paged, next time) and escalates it with Escalate', async () => {
    const id = await declare(`Checkout down ${tag}`, [serviceName]);
    await admin.goto(`/incidents/${id}`);
    const card = admin.getByRole('region', { name: 'Escalation' });
    await card.locator('[data-testid="escalation-policy"], .error').first().waitFor();
    expect(await card.locator('.error').allTextContents()).toEqual([]);
    expect(await card.getByTestId('escalation-policy').textContent()).toBe(policyName);
    expect(await card.getByTestId('escalation-step').textContent()).toBe('1');
    expect(await card.getByTestId('escalation-round').textContent()).toBe('1');
    expect(await card.getByTestId('escalation-paged').textContent()).toBe('rhea');
    expect(await card.getByTestId('escalation-next').locator('time').getAttribute('datetime')).toEqual(expect.any(String));
    await noProblems(admin, 'incident with escalation');

    await card.getByRole('button', { name: 'Escalate' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Yes, escalate' }).click();
    await card.getByTestId('escalation-step').getByText('2').waitFor();
    expect(await card.getByTestId('escalation-paged').textContent()).toBe('olga');
    // Step 2 was the last and the policy does not repeat: nothing is left to escalate to.
    const escalate = card.getByRole('button', { name: 'Escalate' });
    for (const until = Date.now() + 5000; !(await escalate.isDisabled()) && Date.now() < until; ) await admin.waitForTimeout(50);
    expect(await escalate.isDisabled()).toBe(true);
  });
});
