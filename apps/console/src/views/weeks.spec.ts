/// <reference types="jest" />
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { isoWeekOf, mondayOf, weeksUntil } from './weeks';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/** 1970 to 2200: every kind of year boundary, 53-week years included. */
const instants = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true });
/** Luxon's ISO week, the reference the api's grouping is checked against too. */
const luxonWeek = (at: Date) => DateTime.fromJSDate(at, { zone: 'utc' }).toFormat("kkkk-'W'WW");

describe('ISO weeks in UTC', () => {
  it('names the weeks at year boundaries as ISO 8601 does', () => {
    expect(isoWeekOf(new Date('2026-12-03T12:00:00Z'))).toBe('2026-W49');
    // 2021-01-03 (a Sunday) is in the last week of 2020, which has 53 weeks.
    expect(isoWeekOf(new Date('2021-01-03T23:59:59.999Z'))).toBe('2020-W53');
    expect(isoWeekOf(new Date('2021-01-04T00:00:00Z'))).toBe('2021-W01');
    // 2024-12-30 (a Monday) starts week 1 of 2025.
    expect(isoWeekOf(new Date('2024-12-30T00:00:00Z'))).toBe('2025-W01');
  });

  it('agrees with luxon on any instant', () => {
    fc.assert(fc.property(instants, (at) => isoWeekOf(at) === luxonWeek(at)));
  });

  it('starts a week at Monday midnight UTC, at or before the instant, less than a week before it', () => {
    fc.assert(
      fc.property(instants, (at) => {
        const monday = mondayOf(at);
        expect(monday.getUTCDay()).toBe(1);
        expect(monday.toISOString()).toMatch(/T00:00:00\.000Z$/);
        expect(at.getTime() - monday.getTime()).toBeGreaterThanOrEqual(0);
        expect(at.getTime() - monday.getTime()).toBeLessThan(WEEK_MS);
      }),
    );
  });

  it('a window of n weeks is n whole consecutive weeks ending with the week of its last day', () => {
    fc.assert(
      fc.property(instants, fc.integer({ min: 1, max: 53 }), (until, count) => {
        const { from, to, weeks } = weeksUntil(until, count);
        expect(to.getTime() - from.getTime()).toBe(count * WEEK_MS);
        expect(weeks).toHaveLength(count);
        expect(new Set(weeks).size).toBe(count);
        expect(weeks[0]).toBe(luxonWeek(from));
        expect(weeks[count - 1]).toBe(isoWeekOf(until));
        expect(until.getTime()).toBeLessThan(to.getTime());
        // Every instant of the window falls in one of its weeks.
        weeks.forEach((week, i) => expect(luxonWeek(new Date(from.getTime() + i * WEEK_MS + WEEK_MS - 1))).toBe(week));
      }),
    );
  });

  it('the default window: the twelve weeks up to this one', () => {
    const window = weeksUntil(new Date('2026-12-03T09:00:00Z'), 12);
    expect(window.from.toISOString()).toBe('2026-09-14T00:00:00.000Z');
    expect(window.to.toISOString()).toBe('2026-12-07T00:00:00.000Z');
    expect([window.weeks[0], window.weeks[11]]).toEqual(['2026-W38', '2026-W49']);
  });
});
