import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Driving the console as a person would: by labels and button names. */

export interface Person {
  sub: string;
  roles?: string[];
  clearance?: 'public' | 'internal' | 'restricted' | 'confidential';
  dataAccess?: ('pii' | 'phi' | 'legal_hold')[];
}

export const PHONE = { width: 390, height: 844 };

/** A fresh browser context (its own session storage), signed in through the development picker. */
export async function signedIn(browser: Browser, baseURL: string, person: Person, viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport, acceptDownloads: true });
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('User').fill(person.sub);
  const roles = person.roles ?? ['timeline.writer', 'timeline.reader', 'timeline.exporter'];
  for (const role of ['timeline.writer', 'timeline.reader', 'timeline.exporter', 'incidents.admin', 'integrations.admin', 'oncall.admin']) {
    await page.getByRole('checkbox', { name: role }).setChecked(roles.includes(role));
  }
  await page.getByLabel('Clearance').selectOption(person.clearance ?? 'internal');
  for (const dataClass of ['pii', 'phi', 'legal_hold']) {
    await page.getByRole('checkbox', { name: dataClass, exact: true }).setChecked((person.dataAccess ?? []).includes(dataClass as 'pii'));
  }
  await page.getByRole('button', { name: `Sign in as ${person.sub}` }).click();
  await page.getByRole('heading', { name: 'Incidents', exact: true }).waitFor();
  return { context, page };
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (WCAG 2.1 A/AA rules). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated, not injected as a <script>: the console's CSP allows no inline or foreign script, rightly.
  await page.evaluate(AXE);
  // A string, run in the page: this file is compiled without the DOM's types.
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`)) as {
    id: string;
    impact: string;
    help: string;
    targets: string[];
  }[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}

/** `it` for a step in the browser `browser()` answers; a step without one says so (the suite then proves nothing, visibly). */
export function stepsInBrowser(browser: () => Browser | undefined) {
  return (name: string, step: (browser: Browser) => Promise<void>, timeout = 60_000) =>
    it(name, async () => {
      const launched = browser();
      if (!launched) return console.warn(`SKIPPED (no browser): ${name}`);
      await step(launched);
    }, timeout);
}

/** No serious or critical axe violation on the page; `name` says which page failed. */
export const noProblems = async (page: Page, name: string) => expect([name, await accessibilityProblems(page)]).toEqual([name, []]);
