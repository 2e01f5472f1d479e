import { checkWindow, queryInstant } from '../http/time-window.query';

/** The longest window of `shifts`: a quarter (the contract's bound). */
export const MAX_SHIFT_WINDOW_DAYS = 93;
/** `shifts` without `to`: a week from `from`. */
export const DEFAULT_SHIFT_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;

/** GET /api/v1/schedules/{id}/oncall?at=: the instant asked about, now when absent (epoch ms). */
export function parseOnCallQuery(raw: Record<string, unknown>, now: number): number {
  return queryInstant(raw, 'at', now);
}

/** GET /api/v1/schedules/{id}/shifts?from=&to=: from now and a week on when absent; `to` after `from`, at most 93 days apart. */
export function parseShiftsQuery(raw: Record<string, unknown>, now: number): { from: number; to: number } {
  const from = queryInstant(raw, 'from', now);
  const to = queryInstant(raw, 'to', from + DEFAULT_SHIFT_WINDOW_DAYS * DAY_MS);
  checkWindow(from, to, MAX_SHIFT_WINDOW_DAYS);
  return { from, to };
}
