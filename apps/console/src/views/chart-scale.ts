/** The numbers of the Insights charts: durations in words, and axes with round steps (no chart library: docs/decisions.md). */

const UNITS = [
  { name: 's', seconds: 1 },
  { name: 'min', seconds: 60 },
  { name: 'h', seconds: 3600 },
  { name: 'd', seconds: 86_400 },
] as const;

export type Unit = (typeof UNITS)[number];

/** The largest unit the value fills at least twice (90 s stays seconds; 3 min are minutes). */
export function unitFor(seconds: number): Unit {
  return [...UNITS].reverse().find((unit) => seconds >= 2 * unit.seconds) ?? UNITS[0];
}

const oneDecimal = (n: number) => String(Math.round(n * 10) / 10);

/** A duration as a responder says it: `45 s`, `12.5 min`, `3 h`, `1.2 d`; `none` when there is none. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return 'none';
  const unit = unitFor(seconds);
  return `${oneDecimal(seconds / unit.seconds)} ${unit.name}`;
}

/** The smallest step of 1, 2 or 5 times a power of ten that covers `max` in at most `most` steps. */
function roundStep(max: number, most: number): number {
  const rough = max / most;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step * most >= max) ?? 10 * power;
}

/** An axis from 0: its ticks (round, in the unit's own terms when given), the last at or above `max`. */
export function axisTicks(max: number, unit: { seconds: number } = { seconds: 1 }, integers = false, most = 5): number[] {
  const inUnit = max / unit.seconds;
  if (!(inUnit > 0)) return [0, unit.seconds];
  const step = Math.max(roundStep(inUnit, most), integers ? 1 : 0);
  const count = Math.ceil(inUnit / step - 1e-9);
  return Array.from({ length: count + 1 }, (_, i) => i * step * unit.seconds);
}
