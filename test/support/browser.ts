import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (.ci/run installs it); playwright-core cannot download a browser here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The real browser, or undefined when it is absent: the caller then says it
 * skipped. Under CI an absent browser is an error, never a skip.
 */
export async function launchChromium(suite: string): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM_PATH)) {
    const why = `${suite}: no browser at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
    if (process.env.CI) throw new Error(why);
    console.warn(`SKIPPED ${why}`);
    return undefined;
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--disable-dev-shm-usage'] });
}
