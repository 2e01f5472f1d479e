/**
 * ISO weeks in UTC, as the analytics route groups by them (`2026-W49`): the
 * Insights page's window is whole weeks, and the weeks without an incident,
 * which the api does not answer, are still drawn.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const WEEK_MS = 7 * DAY_MS;

/** Midnight UTC of the Monday that starts the ISO week holding `at`. */
export function mondayOf(at: Date): Date {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(midnight - sinceMonday * DAY_MS);
}

/** The ISO week holding `at`, as the api names it: its year is the year of its Thursday. */
export function isoWeekOf(at: Date): string {
  const thursday = new Date(mondayOf(at).getTime() + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / WEEK_MS) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

export interface WeeksWindow {
  /** Monday 00:00 UTC of the first week. */
  from: Date;
  /** Monday 00:00 UTC after the last week (exclusive, as the api takes `to`). */
  to: Date;
  /** Every week in order, oldest first. */
  weeks: string[];
}

/** The `count` ISO weeks that end with the week holding `until`. */
export function weeksUntil(until: Date, count: number): WeeksWindow {
  const to = new Date(mondayOf(until).getTime() + WEEK_MS);
  const from = new Date(to.getTime() - count * WEEK_MS);
  const weeks = Array.from({ length: count }, (_, i) => isoWeekOf(new Date(from.getTime() + i * WEEK_MS)));
  return { from, to, weeks };
}
