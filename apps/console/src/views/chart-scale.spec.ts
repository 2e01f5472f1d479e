/// <reference types="jest" />
import fc from 'fast-check';
import { axisTicks, formatDuration, unitFor } from './chart-scale';

describe('durations in words', () => {
  it('says each in the unit a responder would', () => {
    expect([0, 45, 90, 150, 750, 7200, 9000, 200_000].map(formatDuration)).toEqual(['0 s', '45 s', '90 s', '2.5 min', '12.5 min', '2 h', '2.5 h', '2.3 d']);
    expect(formatDuration(null)).toBe('none');
  });
});

describe('axis ticks', () => {
  const seconds = fc.double({ min: 0.001, max: 400 * 86_400, noNaN: true });

  it('start at 0, rise by one round step, end at or above the largest value, at most six of them', () => {
    fc.assert(
      fc.property(seconds, fc.boolean(), (max, useUnit) => {
        const unit = useUnit ? unitFor(max) : { seconds: 1 };
        const ticks = axisTicks(max, unit);
        expect(ticks[0]).toBe(0);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(6);
        expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max * (1 - 1e-9));
        const step = (ticks[1] - ticks[0]) / unit.seconds;
        const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
        expect([1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-6)).toBe(true);
        // The step before the last still falls short of the largest value: no empty step at the top.
        expect(ticks[ticks.length - 2]).toBeLessThan(max);
      }),
    );
  });

  it('count in whole numbers when asked to', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (max) => {
        const ticks = axisTicks(max, undefined, true);
        expect(ticks.every(Number.isInteger)).toBe(true);
        expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      }),
    );
    expect(axisTicks(3, undefined, true)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(0, undefined, true)).toEqual([0, 1]);
  });

  it('in a unit, fall on round numbers of that unit', () => {
    expect(axisTicks(750, unitFor(750))).toEqual([0, 300, 600, 900]);
    expect(axisTicks(9000, unitFor(9000))).toEqual([0, 1800, 3600, 5400, 7200, 9000]);
  });
});
