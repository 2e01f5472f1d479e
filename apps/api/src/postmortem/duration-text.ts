const UNITS: [name: string, seconds: number][] = [
  ['d', 86_400],
  ['h', 3_600],
  ['min', 60],
  ['s', 1],
];

/**
 * A duration for a reader, in whole seconds rounded down (toward zero), largest unit first,
 * units that are zero left out: `4 min 12 s`, `1 h 5 s`, `0 s`. Negative only when the
 * clocks that recorded the two times disagreed; the sign is kept rather than hidden.
 */
export function durationText(milliseconds: number): string {
  let rest = Math.floor(Math.abs(milliseconds) / 1000);
  const parts: string[] = [];
  for (const [name, seconds] of UNITS) {
    const count = Math.floor(rest / seconds);
    rest -= count * seconds;
    if (count > 0) parts.push(`${count} ${name}`);
  }
  const text = parts.join(' ') || '0 s';
  return milliseconds <= -1000 ? `-${text}` : text;
}
