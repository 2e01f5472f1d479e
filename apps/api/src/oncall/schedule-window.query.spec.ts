import fc from 'fast-check';
import { TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import { parseOnCallQuery, parseShiftsQuery } from './schedule-window.query';

const NOW = Date.parse('2026-03-28T12:00:00Z');
const DAY = 86_400_000;

describe('parseOnCallQuery', () => {
  it('gives the instant asked about, or now', () => {
    expect(parseOnCallQuery({ at: '2026-03-29T09:00:00+02:00' }, NOW)).toBe(Date.parse('2026-03-29T07:00:00Z'));
    expect(parseOnCallQuery({}, NOW)).toBe(NOW);
  });

  it.each([['yesterday'], [['2026-03-29T07:00:00Z', '2026-03-30T07:00:00Z']]])('refuses at=%j', (at) => {
    expect(() => parseOnCallQuery({ at }, NOW)).toThrow(new InvalidError(`at must be ${TIMESTAMP_RULE}`));
  });
});

describe('parseShiftsQuery', () => {
  it('gives the window asked for, and from now a week on by default', () => {
    expect(parseShiftsQuery({ from: '2026-03-28T00:00:00Z', to: '2026-03-30T12:00:00Z' }, NOW)).toEqual({ from: Date.parse('2026-03-28T00:00:00Z'), to: Date.parse('2026-03-30T12:00:00Z') });
    expect(parseShiftsQuery({}, NOW)).toEqual({ from: NOW, to: NOW + 7 * DAY });
    expect(parseShiftsQuery({ from: '2026-01-01T00:00:00Z' }, NOW)).toEqual({ from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-01-08T00:00:00Z') });
  });

  it('refuses a window that ends before it starts, or is over 93 days long', () => {
    expect(() => parseShiftsQuery({ from: '2026-03-28T00:00:00Z', to: '2026-03-28T00:00:00Z' }, NOW)).toThrow(new InvalidError('to must be after from'));
    expect(() => parseShiftsQuery({ from: '2026-01-01T00:00:00Z', to: '2026-04-04T00:00:01Z' }, NOW)).toThrow(new InvalidError('from and to must be at most 93 days apart'));
    expect(() => parseShiftsQuery({ to: 'soon' }, NOW)).toThrow(new InvalidError(`to must be ${TIMESTAMP_RULE}`));
  });

  it('accepts exactly the windows longer than nothing and at most 93 days long', () => {
    fc.assert(
      fc.property(fc.integer({ min: -DAY, max: 100 * DAY }), (length) => {
        const query = { from: new Date(NOW).toISOString(), to: new Date(NOW + length).toISOString() };
        const accepted = (() => {
          try {
            return parseShiftsQuery(query, NOW).to - NOW === length;
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidError);
            return false;
          }
        })();
        expect(accepted).toBe(length > 0 && length <= 93 * DAY);
      }),
    );
  });
});
