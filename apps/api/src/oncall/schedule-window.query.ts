import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';

/** The longest window of `shifts`: a quarter (the contract's bound). */
export const MAX_SHIFT_WINDOW_DAYS = 93;
/** `shifts` without `to`: a week from `from`. */
export const DEFAULT_SHIFT_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;

function instant(raw: Record<string, unknown>, name: string, otherwise: number): number {
  const value = raw[name];
  if (value === undefined) return otherwise;
  const utc = typeof value === 'string' ? parseTimestamp(value) : undefined;
  if (utc === undefined) throw new InvalidError(`${name} must be ${TIMESTAMP_RULE}`);
  return Date.parse(utc);
}

/** GET /api/v1/schedules/{id}/oncall?at=: the instant asked about, now when absent (epoch ms). */
export function parseOnCallQuery(raw: Record<string, unknown>, now: number): number {
  return instant(raw, 'at', now);
}

/** GET /api/v1/schedules/{id}/shifts?from=&to=: from now and a week on when absent; `to` after `from`, at most 93 days apart. */
export function parseShiftsQuery(raw: Record<string, unknown>, now: number): { from: number; to: number } {
  const from = instant(raw, 'from', now);
  const to = instant(raw, 'to', from + DEFAULT_SHIFT_WINDOW_DAYS * DAY_MS);
  if (to <= from) throw new InvalidError('to must be after from');
  if (to - from > MAX_SHIFT_WINDOW_DAYS * DAY_MS) throw new InvalidError(`from and to must be at most ${MAX_SHIFT_WINDOW_DAYS} days apart`);
  return { from, to };
}
