import { parseTimestamp } from './timestamp';

describe('parseTimestamp', () => {
  it.each([
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00.5+02:00', '2026-11-22T08:00:00.500Z'],
    ['2026-11-22 10:00:00.123456z', '2026-11-22T10:00:00.123Z'],
    ['2099-01-01T23:30:00-09:00', '2099-01-02T08:30:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
    ['2026-11-22T10:00:00.5+00:00', '2026-11-22T10:00:00.500Z'],
    ['2026-11-22T10:00:00-00:00', '2026-11-22T10:00:00.000Z'],
    ['0000-01-01T00:30:00+00:30', '0000-01-01T00:00:00.000Z'],
    ['0001-01-01T00:30:00+01:00', '0000-12-31T23:30:00.000Z'],
    ['9999-12-31T22:59:59.999-01:00', '9999-12-31T23:59:59.999Z'],
    ['2024-02-28T23:30:00-01:15', '2024-02-29T00:45:00.000Z'],
  ])('normalises %s to UTC %s', (text, utc) => {
    expect(parseTimestamp(text)).toBe(utc);
  });

  it.each(['2016-12-31T23:59:60Z', '2026-11-22T10:00:00+01', '2026-02-30T00:00:00Z', '1900-02-29T00:00:00Z', '9999-12-31T23:00:00-01:00', '0000-01-01T00:00:00+00:01', ' 2026-11-22T10:00:00Z'])(
    'refuses %s',
    (text) => {
      expect(parseTimestamp(text)).toBeUndefined();
    },
  );

  it('answers what Date#toISOString gives for the same instant, across offsets, eras and fractions', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor(Math.random() * 253402300800000);
      const offset = Math.floor(Math.random() * 24 * 60) * (Math.random() < 0.5 ? -1 : 1);
      const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
      const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
      const expected = new Date(ms).toISOString();
      if (local.length !== 23 || local.startsWith('-') || expected.length !== 24) continue;
      expect(parseTimestamp(`${local}${zone}`)).toBe(expected);
    }
  });

  it('accepts and answers exactly what the rule written as a regular expression and Date does, for 50,000 near-timestamps', () => {
    // The rule written the other way: one regular expression, and Date for every instant.
    const reference = (text: string): string | undefined => {
      const match = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(text);
      if (!match) return undefined;
      const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map((group) => Number(match[group] ?? 0));
      if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
      const instant = new Date(0);
      instant.setUTCFullYear(year, month - 1, day);
      // A day past the month's end rolls over into the next.
      if (instant.getUTCDate() !== day) return undefined;
      instant.setUTCHours(hour, minute, second, Number((match[7] ?? '').slice(0, 3).padEnd(3, '0')));
      instant.setTime(instant.getTime() - (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000);
      const text24 = instant.toISOString();
      return text24.length === 24 ? text24 : undefined;
    };
    // A fixed sequence (mulberry32, seeded), so a failure can be replayed.
    let seed = 20261126;
    const next = (below: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * below);
    };
    const pick = (chars: string) => chars[next(chars.length)];
    const likely = () => {
      const two = (below: number) => String(next(below)).padStart(2, '0');
      const fraction = ['', '.5', '.12', '.123', '.1234', '.123456789'][next(6)];
      const zone = ['Z', 'z', '+00:00', '-00:00', `+${two(24)}:${two(60)}`, `-${two(24)}:${two(60)}`][next(6)];
      const field = (from: number, to: number) => String(from + next(to - from + 1)).padStart(2, '0');
      return `${String(next(10_000)).padStart(4, '0')}-${field(1, 12)}-${field(1, 31)}${pick('Tt ')}${field(0, 23)}:${field(0, 59)}:${field(0, 59)}${fraction}${zone}`;
    };
    const differing: [string, string | undefined, string | undefined][] = [];
    let accepted = 0;
    for (let i = 0; i < 50_000; i++) {
      let text = likely();
      // Most cases get one change: a character replaced, dropped or added.
      const at = next(text.length + 1);
      const change = next(4);
      if (change === 1) text = text.slice(0, at) + pick('0159-:Tt Zz+.x') + text.slice(at + 1);
      if (change === 2) text = text.slice(0, at) + text.slice(at + 1);
      if (change === 3) text = text.slice(0, at) + pick('0159-:Zz+.') + text.slice(at);
      const [answer, expected] = [parseTimestamp(text), reference(text)];
      if (answer !== expected) differing.push([text, answer, expected]);
      if (expected !== undefined) accepted++;
    }
    expect(differing.slice(0, 5)).toEqual([]);
    // Both kinds are well represented: the comparison is not only of refusals.
    expect(accepted).toBeGreaterThan(10_000);
    expect(accepted).toBeLessThan(40_000);
  });
});
