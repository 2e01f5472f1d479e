import fc from 'fast-check';
import { compileSchedule, type Layer, onCallAt, type Override, type ScheduleRules, shiftsBetween, WEEKDAYS } from './schedule';

const at = (iso: string) => Date.parse(iso);
const who = (rules: ScheduleRules, iso: string) => onCallAt(compileSchedule(rules), at(iso));
const daily = (start: string, users: string[], extra: Partial<Layer> = {}): Layer => ({ name: 'primary', start, rotation: { every: 1, unit: 'days' }, users, ...extra });
const shiftsIso = (rules: ScheduleRules, from: string, to: string) =>
  shiftsBetween(compileSchedule(rules), at(from), at(to)).map((s) => ({ user: s.user, start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }));

describe('who is on call', () => {
  it('hands a daily rotation over at 09:00 local on both sides of Berlin\'s spring change (a 23-hour day)', () => {
    const rules = { timeZone: 'Europe/Berlin', layers: [daily('2026-03-27T09:00:00+01:00', ['ann', 'bob'])], overrides: [] };
    // 2026-03-29 is the day clocks go from 02:00 to 03:00: 09:00 local is 07:00 UTC from then on.
    expect(who(rules, '2026-03-29T06:59:59Z')).toBe('bob');
    expect(who(rules, '2026-03-29T07:00:00Z')).toBe('ann');
    expect(shiftsIso(rules, '2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z')).toEqual([
      { user: 'ann', start: '2026-03-28T00:00:00.000Z', end: '2026-03-28T08:00:00.000Z' },
      { user: 'bob', start: '2026-03-28T08:00:00.000Z', end: '2026-03-29T07:00:00.000Z' },
      { user: 'ann', start: '2026-03-29T07:00:00.000Z', end: '2026-03-30T07:00:00.000Z' },
      { user: 'bob', start: '2026-03-30T07:00:00.000Z', end: '2026-03-30T12:00:00.000Z' },
    ]);
  });

  it('gives the shift over Berlin\'s autumn change 25 hours', () => {
    const rules = { timeZone: 'Europe/Berlin', layers: [daily('2026-10-24T09:00:00+02:00', ['ann', 'bob'])], overrides: [] };
    const shifts = shiftsIso(rules, '2026-10-24T07:00:00Z', '2026-10-26T08:00:00Z');
    expect(shifts).toEqual([
      { user: 'ann', start: '2026-10-24T07:00:00.000Z', end: '2026-10-25T08:00:00.000Z' },
      { user: 'bob', start: '2026-10-25T08:00:00.000Z', end: '2026-10-26T08:00:00.000Z' },
    ]);
  });

  it('keeps Sydney\'s hand-off at 09:00 local when its clocks go back in April and forward in October', () => {
    const rules = { timeZone: 'Australia/Sydney', layers: [daily('2026-04-03T09:00:00+11:00', ['ann', 'bob', 'cy'])], overrides: [] };
    // 2026-04-05 03:00 AEDT becomes 02:00 AEST: 09:00 local is 23:00 UTC the day before from then on.
    expect(who(rules, '2026-04-04T22:30:00Z')).toBe('bob');
    expect(who(rules, '2026-04-04T23:00:00Z')).toBe('cy');
    // 2026-10-04 02:00 AEST becomes 03:00 AEDT: 09:00 local is 22:00 UTC the day before.
    const october = { ...rules, layers: [daily('2026-10-02T09:00:00+10:00', ['ann', 'bob'])] };
    expect(who(october, '2026-10-03T21:59:00Z')).toBe('bob');
    expect(who(october, '2026-10-03T22:00:00Z')).toBe('ann');
  });

  it('rotates weekly on the same local weekday and time across New York\'s change', () => {
    const rules = { timeZone: 'America/New_York', layers: [{ name: 'weekly', start: '2026-03-02T10:00:00-05:00', rotation: { every: 1, unit: 'weeks' as const }, users: ['ann', 'bob'] }], overrides: [] };
    // 2026-03-09 10:00 EDT is 14:00 UTC.
    expect(who(rules, '2026-03-09T13:59:00Z')).toBe('ann');
    expect(who(rules, '2026-03-09T14:00:00Z')).toBe('bob');
  });

  it('counts hours as elapsed time, not wall-clock time', () => {
    const rules = { timeZone: 'Europe/Berlin', layers: [{ name: 'shifts', start: '2026-03-28T23:00:00Z', rotation: { every: 8, unit: 'hours' as const }, users: ['ann', 'bob'] }], overrides: [] };
    expect(who(rules, '2026-03-29T06:59:00Z')).toBe('ann');
    expect(who(rules, '2026-03-29T07:00:00Z')).toBe('bob');
  });

  it('has no one before a layer starts, or outside its restrictions', () => {
    const weekdays = { days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const, from: '09:00', to: '17:00' };
    const rules = { timeZone: 'Europe/Berlin', layers: [daily('2026-06-01T09:00:00+02:00', ['ann'], { restrictions: [weekdays] })], overrides: [] };
    expect(who(rules, '2026-05-29T10:00:00Z')).toBeNull();
    expect(who(rules, '2026-06-02T06:59:00Z')).toBeNull();
    expect(who(rules, '2026-06-02T07:00:00Z')).toBe('ann');
    expect(who(rules, '2026-06-02T15:00:00Z')).toBeNull();
    expect(who(rules, '2026-06-06T10:00:00Z')).toBeNull(); // a Saturday
  });

  it('runs an overnight restriction into the next day, named by the day it starts', () => {
    const nights = { days: ['fri'] as const, from: '22:00', to: '06:00' };
    const rules = { timeZone: 'Europe/Berlin', layers: [daily('2026-06-01T00:00:00+02:00', ['ann'], { restrictions: [nights] })], overrides: [] };
    expect(who(rules, '2026-06-06T01:00:00Z')).toBe('ann'); // Saturday 03:00 local
    expect(who(rules, '2026-06-06T04:00:00Z')).toBeNull(); // Saturday 06:00 local
    expect(who(rules, '2026-06-07T01:00:00Z')).toBeNull(); // Sunday 03:00 local
  });

  it('lets the last layer with someone win, and a later override win over an earlier one and every layer', () => {
    const rules: ScheduleRules = {
      timeZone: 'UTC',
      layers: [daily('2026-01-01T00:00:00Z', ['ann']), daily('2026-01-01T00:00:00Z', ['bob'], { restrictions: [{ days: ['sat', 'sun'], from: '00:00', to: '00:00' }] })],
      overrides: [
        { user: 'cy', start: '2026-01-05T10:00:00Z', end: '2026-01-05T14:00:00Z' },
        { user: 'dee', start: '2026-01-05T12:00:00Z', end: '2026-01-05T13:00:00Z' },
      ],
    };
    expect(who(rules, '2026-01-03T10:00:00Z')).toBe('bob'); // Saturday: the later layer
    expect(who(rules, '2026-01-05T09:00:00Z')).toBe('ann');
    expect(who(rules, '2026-01-05T11:00:00Z')).toBe('cy');
    expect(who(rules, '2026-01-05T12:30:00Z')).toBe('dee');
    expect(shiftsIso(rules, '2026-01-05T09:00:00Z', '2026-01-05T15:00:00Z')).toEqual([
      { user: 'ann', start: '2026-01-05T09:00:00.000Z', end: '2026-01-05T10:00:00.000Z' },
      { user: 'cy', start: '2026-01-05T10:00:00.000Z', end: '2026-01-05T12:00:00.000Z' },
      { user: 'dee', start: '2026-01-05T12:00:00.000Z', end: '2026-01-05T13:00:00.000Z' },
      { user: 'cy', start: '2026-01-05T13:00:00.000Z', end: '2026-01-05T14:00:00.000Z' },
      { user: 'ann', start: '2026-01-05T14:00:00.000Z', end: '2026-01-05T15:00:00.000Z' },
    ]);
  });

  it('starts a restriction whose local start the clocks skip at the first instant after the gap', () => {
    const rules = { timeZone: 'Europe/Berlin', layers: [daily('2026-03-01T00:00:00+01:00', ['ann'], { restrictions: [{ days: ['sun'], from: '02:30', to: '04:00' }] })], overrides: [] };
    // 02:30 does not exist on 2026-03-29: the window starts at 03:30 CEST (01:30 UTC).
    expect(who(rules, '2026-03-29T01:29:00Z')).toBeNull();
    expect(who(rules, '2026-03-29T01:30:00Z')).toBe('ann');
    expect(who(rules, '2026-03-29T02:00:00Z')).toBeNull();
  });
});

// Each property takes a second or two alone; a loaded machine running the whole suite needs more than jest's 5 s.
const PROPERTY_TIMEOUT_MS = 60_000;

// Properties: random layers, restrictions, overrides and windows, in zones of both hemispheres and odd offsets.
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham'];
const YEAR_START = Date.parse('2026-01-01T00:00:00Z');
const YEAR_MS = 365 * 86_400_000;
const USERS = ['ann', 'bob', 'cy', 'dee'];
const instant = fc.integer({ min: YEAR_START, max: YEAR_START + YEAR_MS });
const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45)).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const restriction = fc.record({ days: fc.subarray([...WEEKDAYS], { minLength: 1 }), from: hhmm, to: hhmm });
const layer = fc.record({
  name: fc.constant('layer'),
  start: instant.map((t) => new Date(t).toISOString()),
  rotation: fc.record({ every: fc.integer({ min: 1, max: 3 }), unit: fc.constantFrom('hours' as const, 'days' as const, 'weeks' as const) }),
  users: fc.subarray(USERS, { minLength: 1 }),
  restrictions: fc.option(fc.array(restriction, { minLength: 1, maxLength: 2 }), { nil: undefined }),
});
const override: fc.Arbitrary<Override> = fc
  .tuple(instant, fc.integer({ min: 60_000, max: 3 * 86_400_000 }), fc.constantFrom(...USERS))
  .map(([start, length, user]) => ({ user, start: new Date(start).toISOString(), end: new Date(start + length).toISOString() }));
const rules: fc.Arbitrary<ScheduleRules> = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  layers: fc.array(layer, { minLength: 1, maxLength: 3 }),
  overrides: fc.array(override, { maxLength: 4 }),
});
const window = fc.tuple(instant, fc.integer({ min: 1, max: 10 * 86_400_000 })).map(([from, length]) => ({ from, to: from + length }));

describe('who is on call, as properties', () => {
  it('never overlaps shifts, keeps them in the window and in time order, and joins touching stretches of one user', () => {
    fc.assert(
      fc.property(rules, window, (r, { from, to }) => {
        const shifts = shiftsBetween(compileSchedule(r), from, to);
        shifts.forEach((s, i) => {
          expect(s.start).toBeLessThan(s.end);
          expect(s.start).toBeGreaterThanOrEqual(from);
          expect(s.end).toBeLessThanOrEqual(to);
          const next = shifts[i + 1];
          if (next) {
            expect(next.start).toBeGreaterThanOrEqual(s.end);
            if (next.start === s.end) expect(next.user).not.toBe(s.user);
          }
        });
      }),
      { numRuns: 150 },
    );
  }, PROPERTY_TIMEOUT_MS);

  it('agrees with onCallAt at every edge of every shift and at random instants: covered time is exactly the shifts', () => {
    fc.assert(
      fc.property(rules, window, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 20 }), (r, { from, to }, fractions) => {
        const schedule = compileSchedule(r);
        const shifts = shiftsBetween(schedule, from, to);
        const expected = (t: number) => shifts.find((s) => s.start <= t && t < s.end)?.user ?? null;
        const probes = [
          ...fractions.map((f) => Math.min(to - 1, from + Math.floor(f * (to - from)))),
          ...shifts.flatMap((s) => [s.start, s.end - 1, s.end].filter((t) => t >= from && t < to)),
        ];
        for (const t of probes) expect([t, onCallAt(schedule, t)]).toEqual([t, expected(t)]);
      }),
      { numRuns: 150 },
    );
  }, PROPERTY_TIMEOUT_MS);
});
