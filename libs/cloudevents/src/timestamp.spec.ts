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
});
