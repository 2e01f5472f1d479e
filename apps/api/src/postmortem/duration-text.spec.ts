import fc from 'fast-check';
import { durationText } from './duration-text';

const SECONDS: Record<string, number> = { d: 86_400, h: 3_600, min: 60, s: 1 };

/** The seconds a text names, read back unit by unit. */
const secondsOf = (text: string) => text.split(' ').reduce((sum, word, i, words) => (i % 2 === 0 ? sum + Number(word) * SECONDS[words[i + 1]] : sum), 0);

describe('durationText', () => {
  it('names a duration as a reader says it', () => {
    expect(durationText(252_000)).toBe('4 min 12 s');
    expect(durationText(252_999)).toBe('4 min 12 s');
    expect(durationText(3_605_000)).toBe('1 h 5 s');
    expect(durationText(2 * 86_400_000 + 3_600_000)).toBe('2 d 1 h');
    expect(durationText(0)).toBe('0 s');
    expect(durationText(999)).toBe('0 s');
    expect(durationText(-4_000)).toBe('-4 s');
  });

  it('reads back as the whole seconds, rounded down, with each unit once, largest first, none zero or past its next unit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 86_400_000 }), (ms) => {
        const text = durationText(ms);
        expect(secondsOf(text)).toBe(Math.floor(ms / 1000));
        const words = text.split(' ');
        const units = words.filter((_, i) => i % 2 === 1);
        const counts = words.filter((_, i) => i % 2 === 0).map(Number);
        expect(units).toEqual(Object.keys(SECONDS).filter((unit) => units.includes(unit)));
        if (ms >= 1000) expect(counts.every((count) => count > 0)).toBe(true);
        units.forEach((unit, i) => unit !== 'd' && expect(counts[i] * SECONDS[unit]).toBeLessThan(unit === 'h' ? 86_400 : unit === 'min' ? 3_600 : 60));
      }),
    );
  });

  it('keeps the sign of a negative duration (clocks that disagreed) and its size', () => {
    fc.assert(fc.property(fc.integer({ min: 1000, max: 400 * 86_400_000 }), (ms) => expect(durationText(-ms)).toBe(`-${durationText(ms)}`)));
  });
});
