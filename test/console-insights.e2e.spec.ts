import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { formatDuration } from '../apps/console/src/views/chart-scale';
import { weeksUntil } from '../apps/console/src/views/weeks';
import { startTestApp, type TestApp } from './support/app';
import { launchChromium } from './support/browser';
import { requireConsoleBuild } from './support/console-build';
import { noProblems, PHONE, signedIn, stepsInBrowser } from './support/console-pages';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

const CSV_HEADER = 'key,incidents,acknowledged,resolved,escalated,canceled,duplicates,alerts,tta_p50,tta_p90,tta_mean,ttr_p50,ttr_p90,ttr_mean';

type Times = { p50: number | null; p90: number | null; mean: number | null };
type Group = { key: string | null; incidents: number; acknowledged: number; resolved: number; time_to_acknowledge: Times; time_to_resolve: Times };

/**
 * The Insights page and the postmortem download in a real browser (Debian's
 * chromium through playwright-core), against the whole api in-process: four
 * incidents of two services and none, acknowledged and resolved through the
 * api, drawn with the api's own numbers, at desktop and phone sizes, with axe.
 * The steps share the incidents, so they run in order.
 */
describe('the console’s Insights page and postmortem in a browser', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let baseURL: string;
  let desk: Page;
  const tag = randomUUID().slice(0, 6);
  const [checkout, search] = [`Checkout ${tag}`, `Search ${tag}`];
  const titles = { slow: `Slow checkout ${tag}`, down: `Checkout down ${tag}`, search: `Search empty ${tag}`, other: `Printer jam ${tag}` };
  const ids: Record<keyof typeof titles, string> = { slow: '', down: '', search: '', other: '' };
  const dataDir = tempDir('console-insights');
  const writer = () => bearer(token({ sub: 'alice' }));

  const declare = async (title: string, services: string[]) => {
    const answer = await t.http().post('/api/v1/graphql').set(writer()).send({
      query: 'mutation($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }',
      variables: { input: { title, severity: 'SEV_2', services } },
    });
    expect(answer.body.errors).toBeUndefined();
    return answer.body.data.declareIncident.id as string;
  };
  const move = async (id: string, to: 'ack' | 'resolve') => expect((await t.http().post(`/api/v1/incidents/${id}/${to}`).set(writer())).status).toBe(200);
  /** The api's answer for the default window: what the page must show. */
  const metrics = async (groupBy: 'week' | 'service') => {
    const { from, to } = weeksUntil(new Date(), 12);
    const answer = await t.http().get(`/api/v1/analytics/incidents?from=${from.toISOString()}&to=${to.toISOString()}&group_by=${groupBy}`).set(writer());
    expect(answer.status).toBe(200);
    return answer.body.groups as Group[];
  };

  beforeAll(async () => {
    requireConsoleBuild();
    browser = await launchChromium('console Insights browser tests');
    if (!browser) return;
    t = await startTestApp({}, dataDir.path);
    await t.app.listen(0, '127.0.0.1');
    baseURL = await t.app.getUrl();
    const admin = bearer(token({ sub: 'olga', roles: ['oncall.admin'] }));
    for (const name of [checkout, search]) expect((await t.http().post('/api/v1/services').set(admin).send({ name })).status).toBe(201);
    ids.slow = await declare(titles.slow, [checkout]);
    ids.down = await declare(titles.down, [checkout]);
    ids.search = await declare(titles.search, [search]);
    ids.other = await declare(titles.other, []);
    await move(ids.slow, 'ack');
    await move(ids.slow, 'resolve');
    await move(ids.down, 'ack');
    await move(ids.search, 'resolve');
    ({ page: desk } = await signedIn(browser, baseURL, { sub: 'alice' }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    dataDir.remove();
  });

  const inBrowser = stepsInBrowser(() => browser);

  const tableRows = (page: Page, caption: string) =>
    page.getByRole('table', { name: caption }).locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
  const openTables = async (page: Page) => {
    for (const fold of await page.locator('details.chart-table').all()) await fold.evaluate((details) => ((details as unknown as { open: boolean }).open = true));
  };

  inBrowser('opens from the navigation on the last 12 ISO weeks, charting each week’s p50 and p90 with the api’s numbers', async () => {
    await desk.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Insights' }).click();
    await desk.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    const { weeks } = weeksUntil(new Date(), 12);
    const thisWeek = weeks[11];
    expect(await desk.getByTestId('window').textContent()).toMatch(new RegExp(`^ISO weeks ${weeks[0]} to ${thisWeek} \\(UTC\\): `));

    const [week] = await metrics('week');
    expect(week).toMatchObject({ key: thisWeek, incidents: 4, acknowledged: 2, resolved: 2 });
    const acknowledge = desk.getByRole('img', { name: /^Time to acknowledge per ISO week/ });
    await acknowledge.waitFor();
    expect(await acknowledge.getAttribute('aria-label')).toBe(
      `Time to acknowledge per ISO week, ${weeks[0]} to ${thisWeek} (UTC), in the 1 of 12 weeks with incidents acknowledged: ` +
        `median (p50) ${formatDuration(week.time_to_acknowledge.p50)} (${thisWeek}); 90th percentile (p90) at most ${formatDuration(week.time_to_acknowledge.p90)} (${thisWeek}). ` +
        "Each week's figures are in the table below.",
    );
    // One point a series, in this week's column (the newest, rightmost), none in the eleven weeks without incidents.
    const acknowledgeChart = desk.locator('svg[data-chart="time_to_acknowledge"]');
    expect(await acknowledgeChart.locator('circle.chart-p50').evaluateAll((points) => points.map((p) => p.getAttribute('data-week')))).toEqual([thisWeek]);
    expect(await acknowledgeChart.locator('rect.chart-p90').count()).toBe(1);
    expect(await desk.locator('svg[data-chart="time_to_resolve"] circle.chart-p50').count()).toBe(1);

    await openTables(desk);
    const acknowledged = await tableRows(desk, 'Time to acknowledge per ISO week');
    expect(acknowledged).toHaveLength(12);
    expect(acknowledged[11]).toEqual([thisWeek, '4', '2', ...[week.time_to_acknowledge.p50, week.time_to_acknowledge.p90, week.time_to_acknowledge.mean].map(formatDuration)]);
    expect(acknowledged[0]).toEqual([weeks[0], '0', '0', 'none', 'none', 'none']);
    const resolved = await tableRows(desk, 'Time to resolve per ISO week');
    expect(resolved[11]).toEqual([thisWeek, '4', '2', ...[week.time_to_resolve.p50, week.time_to_resolve.p90, week.time_to_resolve.mean].map(formatDuration)]);
    await noProblems(desk, 'insights (desktop, tables open)');
  });

  inBrowser('charts incidents, acknowledged and resolved per service, most incidents first, incidents without a service too', async () => {
    const services = await metrics('service');
    expect(services.map((s) => [s.key, s.incidents, s.acknowledged, s.resolved])).toEqual(
      expect.arrayContaining([
        [checkout, 2, 2, 1],
        [search, 1, 0, 1],
        [null, 1, 0, 0],
      ]),
    );
    const chart = desk.getByRole('img', { name: /^Incidents per service/ });
    expect(await chart.getAttribute('aria-label')).toContain(`${checkout} 2, of them 2 acknowledged and 1 resolved; `);
    const bars = (service: string) => desk.locator(`svg[data-chart="services"] [data-service="${service}"] .chart-value`).allTextContents();
    expect(await bars(checkout)).toEqual(['2', '2', '1']);
    expect(await bars(search)).toEqual(['1', '0', '1']);
    expect(await bars('No service')).toEqual(['1', '0', '0']);
    expect(await tableRows(desk, 'Incidents per service')).toEqual([
      [checkout, '2', '2', '1'],
      ['No service', '1', '0', '0'],
      [search, '1', '0', '1'],
    ]);
  });

  inBrowser('downloads the figures as CSV, whose first line is the contract’s header row', async () => {
    const { weeks } = weeksUntil(new Date(), 12);
    const [byWeek] = await Promise.all([desk.waitForEvent('download'), desk.getByRole('button', { name: 'CSV by week' }).click()]);
    expect(byWeek.suggestedFilename()).toBe(`incidents-by-week-${weeks[0]}-to-${weeks[11]}.csv`);
    const lines = readFileSync((await byWeek.path())!, 'utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines[1]).toMatch(new RegExp(`^${weeks[11]},4,2,2,`));
    const [byService] = await Promise.all([desk.waitForEvent('download'), desk.getByRole('button', { name: 'CSV by service' }).click()]);
    expect(readFileSync((await byService.path())!, 'utf8').split(/\r?\n/)[0]).toBe(CSV_HEADER);
    expect(await desk.getByRole('alert').count()).toBe(0);
  });

  inBrowser('follows the window chosen: fewer weeks, or weeks a year ago with no incident, said so in words', async () => {
    await desk.getByRole('combobox', { name: 'Weeks' }).selectOption('4');
    await desk.getByRole('img', { name: /in the 1 of 4 weeks with incidents acknowledged/ }).waitFor();
    const yearAgo = new Date(Date.now() - 365 * 24 * 60 * 60 * 1000);
    const { weeks } = weeksUntil(yearAgo, 4);
    await desk.getByLabel('Up to the week of (UTC)').fill(yearAgo.toISOString().slice(0, 10));
    await desk.getByRole('img', { name: `Time to resolve per ISO week, ${weeks[0]} to ${weeks[3]} (UTC): no incident declared in these weeks was resolved.` }).waitFor();
    await desk.getByRole('region', { name: 'Incidents per service' }).getByText('No incident was declared in these weeks.').first().waitFor();
    await noProblems(desk, 'insights, an empty window');
  });

  inBrowser('fits a 390-px phone: nothing wider than the screen, tables open, the navigation on one line, no axe problem', async (b) => {
    const phone = await signedIn(b, baseURL, { sub: 'alice' }, PHONE);
    const { page } = phone;
    await page.goto('/insights');
    await page.locator('svg[data-chart="services"]').waitFor();
    await openTables(page);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(PHONE.width);
    const tops = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((links) => links.map((a) => a.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    // Drawn to the phone's width, the newest week's points inside it.
    const box = (await page.locator('svg[data-chart="time_to_acknowledge"]').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    await noProblems(page, 'insights (phone, tables open)');
    await phone.context.close();
  });

  inBrowser('says why there is nothing to see without timeline.reader', async (b) => {
    const writerOnly = await signedIn(b, baseURL, { sub: 'wendy', roles: ['timeline.writer'] });
    await writerOnly.page.goto('/insights');
    await writerOnly.page.getByText('Insights need the timeline.reader role, which your sign-in does not carry.').waitFor();
    expect(await writerOnly.page.getByRole('img').count()).toBe(0);
    await writerOnly.context.close();
  });

  inBrowser('downloads an incident’s postmortem draft as Markdown; a sign-in without timeline.exporter reads why instead', async (b) => {
    await desk.goto(`/incidents/${ids.slow}`);
    const card = desk.getByRole('region', { name: 'Postmortem' });
    const [file] = await Promise.all([desk.waitForEvent('download'), card.getByRole('button', { name: 'Download postmortem' }).click()]);
    expect(file.suggestedFilename()).toBe(`${ids.slow}-postmortem.md`);
    const text = readFileSync((await file.path())!, 'utf8');
    expect(text.startsWith(`# Postmortem: ${titles.slow}\n`)).toBe(true);
    expect(text).toContain('## Action items');
    expect(await card.getByRole('alert').count()).toBe(0);
    await noProblems(desk, 'incident page with the postmortem card');

    const reader = await signedIn(b, baseURL, { sub: 'carol', roles: ['timeline.reader'] });
    await reader.page.goto(`/incidents/${ids.slow}`);
    const theirs = reader.page.getByRole('region', { name: 'Postmortem' });
    await theirs.getByText('Drafting a postmortem needs the timeline.exporter role, which your sign-in does not carry.').waitFor();
    expect(await theirs.getByRole('button').count()).toBe(0);
    await reader.context.close();
  });
});
