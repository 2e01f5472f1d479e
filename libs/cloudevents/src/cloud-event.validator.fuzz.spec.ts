import fc from 'fast-check';
import { checkCloudEvent } from './cloud-event.validator';

/** Larger counts in the long campaign (CAMPAIGN=long). */
const RUNS = process.env.CAMPAIGN === 'long' ? 20_000 : 2000;

const STACK_TRACE = /\n\s+at |\.ts:\d+|node_modules/;

/** Whatever the validator says about a body, it says it in words, never by throwing. */
function answerOf(body: unknown) {
  const result = checkCloudEvent(body);
  if (!result.ok) {
    expect(result.errors.length).toBeGreaterThan(0);
    for (const error of result.errors) {
      expect(typeof error).toBe('string');
      expect(error).not.toMatch(STACK_TRACE);
    }
  }
  return result;
}

const validEvent = fc.record({
  specversion: fc.constant('1.0'),
  id: fc.string({ minLength: 1, maxLength: 64 }),
  source: fc.webUrl(),
  type: fc.stringMatching(/^im\.[A-Za-z0-9_.-]{1,40}$/),
  time: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  data: fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
});

/** Nesting far deeper than any event needs. */
const deeplyNested = fc.integer({ min: 100, max: 20_000 }).map((depth) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { nested: value };
  return value;
});

/** A valid event with one attribute removed, retyped, oversized or joined by a hostile key. */
const mutatedEvent = fc
  .tuple(
    validEvent,
    fc.constantFrom('specversion', 'id', 'source', 'type', 'time', 'subject', 'data', 'im.visibility', 'im.data_class', 'im.origin_id', '__proto__', 'constructor'),
    fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 4 }),
      fc.string({ minLength: 1000, maxLength: 70_000 }),
      fc.constantFrom(null, '', 0, -1, true, [], {}, 'incident/', 'incident/a/b', '1.0 ', 'im.', 'not-a-date', '2026-13-45T99:99:99Z'),
      deeplyNested,
    ),
  )
  .map(([event, key, value]) => {
    const mutated: Record<string, unknown> = JSON.parse(JSON.stringify(event));
    if (value === undefined) delete mutated[key];
    else Object.defineProperty(mutated, key, { value, enumerable: true, configurable: true, writable: true });
    return mutated;
  });

describe('CloudEvent validator under fuzzing (fast-check)', () => {
  it('accepts every well-formed event', () => {
    fc.assert(
      fc.property(validEvent, (event) => {
        expect(answerOf(event).ok).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers any JSON value without throwing, and accepts nothing that lacks the required attributes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 6 }), fc.anything(), deeplyNested), (body) => {
        const result = answerOf(body);
        if (result.ok) {
          for (const attribute of ['specversion', 'id', 'source', 'type', 'time'] as const) {
            expect(typeof result.event[attribute]).toBe('string');
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a mutated event unless the mutation kept it valid, and never throws', () => {
    fc.assert(
      fc.property(mutatedEvent, (event) => {
        const result = answerOf(event);
        if (result.ok) {
          expect(result.event.specversion).toBe('1.0');
          expect(result.event.type).toMatch(/^im\./);
          expect(Number.isNaN(Date.parse(result.event.time))).toBe(false);
          expect(Object.getPrototypeOf(result.event)).toBe(Object.prototype);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
