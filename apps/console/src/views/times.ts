/** Times as the on-call views show and take them: in the viewer's own time zone, as a date-time field holds them. */

const DAY_MS = 24 * 60 * 60 * 1000;

/** A shift's edge: weekday, date and time of day. */
export const formatShiftTime = (iso: string) => new Date(iso).toLocaleString(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The two weeks a schedule's picture shows: from the viewer's midnight today, 14 calendar days. */
export function twoWeeks(now: Date): { from: Date; to: Date } {
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const to = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 14);
  return { from, to };
}

/** From now on, as far ahead as a schedule's picture: where "on call next" is looked for. */
export const aheadOf = (now: Date) => ({ from: now, to: new Date(now.getTime() + 14 * DAY_MS) });

const pad = (n: number) => String(n).padStart(2, '0');

/** A time as a datetime-local field holds it (the viewer's zone, to the minute). */
export function toLocalInput(iso: string | Date): string {
  const t = new Date(iso);
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
}

/** A datetime-local value as RFC 3339; what is not a time is sent as typed, for the api to refuse naming the field. */
export function fromLocalInput(value: string): string {
  const t = new Date(value);
  return value && !Number.isNaN(t.getTime()) ? t.toISOString() : value;
}

/** The viewer's own time zone, named as the pictures' captions say. */
export const viewerZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
