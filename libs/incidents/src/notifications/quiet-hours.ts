import type { QuietHoursSetting } from '../notification-preferences';

const DAY_SECONDS = 86_400;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Seconds since local midnight of `instant` in `timeZone`. */
function localSecondOfDay(instant: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 3600 + part('minute') * 60 + part('second');
}

/** Whether the local wall time `second` (of the day) lies in [start, end), a window that may wrap past midnight. */
function inWindow(second: number, start: number, end: number): boolean {
  return start < end ? second >= start && second < end : second >= start || second < end;
}

/**
 * When the responder's quiet hours that `now` falls in end, in their own time
 * zone; undefined when `now` is outside them. The end is the next instant the
 * local clock shows `end`: a daylight-saving change in between moves it by
 * the offset's change, so it is corrected against the zone's own clock.
 */
export function quietHoursEnd(quietHours: QuietHoursSetting | null, now: Date): Date | undefined {
  if (!quietHours) return undefined;
  const { timeZone } = quietHours;
  const start = minutesOf(quietHours.start) * 60;
  const end = minutesOf(quietHours.end) * 60;
  const local = localSecondOfDay(now, timeZone);
  if (!inWindow(local, start, end)) return undefined;
  let candidate = now.getTime() + (((end - local + DAY_SECONDS) % DAY_SECONDS) * 1000 - now.getMilliseconds());
  // Twice: once for an offset change between now and the end, once more in case the first correction crossed another.
  for (let i = 0; i < 2; i += 1) {
    const drift = ((end - localSecondOfDay(new Date(candidate), timeZone) + DAY_SECONDS + DAY_SECONDS / 2) % DAY_SECONDS) - DAY_SECONDS / 2;
    candidate += drift * 1000;
  }
  // A local end time the clocks skip (spring forward) is met at the first instant after the gap.
  return new Date(Math.max(candidate, now.getTime() + 1000));
}
