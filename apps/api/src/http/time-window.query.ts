import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';

const DAY_MS = 86_400_000;

/** A query parameter's instant (epoch ms), read by the one timestamp parser; `otherwise` when absent, and without it the parameter is required. */
export function queryInstant(raw: Record<string, unknown>, name: string, otherwise?: number): number {
  const value = raw[name];
  if (value === undefined && otherwise !== undefined) return otherwise;
  const utc = typeof value === 'string' ? parseTimestamp(value) : undefined;
  if (utc === undefined) throw new InvalidError(`${name} must be ${TIMESTAMP_RULE}`);
  return Date.parse(utc);
}

/** Refuses a `from`-`to` window that does not end after it starts, or is longer than `maxDays`. */
export function checkWindow(from: number, to: number, maxDays: number): void {
  if (to <= from) throw new InvalidError('to must be after from');
  if (to - from > maxDays * DAY_MS) throw new InvalidError(`from and to must be at most ${maxDays} days apart`);
}
