import fc from 'fast-check';
import { factsAtOpening, type IncidentFacts, type MeasuredIncident, measured } from '@im/incidents';
import { IncidentFactsIndex } from './incident-facts-index';
import type { ChangedFacts } from './incident-metrics-queries.port';

/** A read of these changes, up to the last of them, as the SQL stores answer one. */
const applyTo = (index: IncidentFactsIndex, changes: ChangedFacts[]) => index.apply({ changes, readTo: changes.reduce((max, { position }) => (position > max ? position : max), 0n) });

const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const LEVELS = ['internal', 'restricted'] as const;

const facts = (id: string, declaredAt: string, over: Partial<IncidentFacts> = {}): IncidentFacts => ({
  ...factsAtOpening({ id, declaredAt, severity: 'SEV-2', visibility: null, alerts: 0 }),
  ...over,
});

const ids = (index: IncidentFactsIndex, from: string, to: string, levels: readonly string[]) =>
  index
    .declaredIn(Date.parse(from), Date.parse(to), levels)
    .map(({ id }) => id)
    .sort();

describe('IncidentFactsIndex', () => {
  it('answers the incidents declared from `from` (included) to `to` (excluded), to the millisecond', () => {
    const index = new IncidentFactsIndex();
    applyTo(index, 
      ['2026-11-30T23:59:59.999Z', '2026-12-01T00:00:00.000Z', '2026-12-07T23:59:59.999Z', '2026-12-08T00:00:00.000Z'].map((declaredAt, i) => ({
        facts: facts(`INC-${i + 1}`, declaredAt),
        position: BigInt(i + 1),
      })),
    );
    expect(ids(index, '2026-12-01T00:00:00.000Z', '2026-12-08T00:00:00.000Z', [])).toEqual(['INC-2', 'INC-3']);
    expect(ids(index, '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', [])).toEqual([]);
  });

  it('leaves out the incidents of a visibility the caller is not cleared for; those without one are always in', () => {
    const index = new IncidentFactsIndex();
    const at = '2026-12-01T10:00:00.000Z';
    applyTo(index, [
      { facts: facts('INC-1', at), position: 1n },
      { facts: facts('INC-2', at, { visibility: 'internal' }), position: 2n },
      { facts: facts('INC-3', at, { visibility: 'restricted' }), position: 3n },
    ]);
    const year = (levels: string[]) => ids(index, '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', levels);
    expect(year(['public', 'internal'])).toEqual(['INC-1', 'INC-2']);
    expect(year([])).toEqual(['INC-1']);
    expect(year(['internal', 'restricted', 'internal'])).toEqual(['INC-1', 'INC-2', 'INC-3']);
  });

  it("answers the latest change to an incident the caller may see; a withheld incident's change moves only its cleared callers'", () => {
    const index = new IncidentFactsIndex();
    const at = '2026-12-01T10:00:00.000Z';
    expect(index.lastChange(['internal'])).toBe(0n);
    applyTo(index, [
      { facts: facts('INC-1', at), position: 1n },
      { facts: facts('INC-2', at, { visibility: 'internal' }), position: 2n },
    ]);
    expect([index.lastChange([]), index.lastChange(['internal'])]).toEqual([1n, 2n]);
    applyTo(index, [{ facts: facts('INC-3', at, { visibility: 'restricted', acknowledgedAt: at }), position: 3n }]);
    expect([index.lastChange(['internal']), index.lastChange(['internal', 'restricted']), index.position]).toEqual([2n, 3n, 3n]);
  });

  it('passes over an incident whose declaration cannot be read: in no window, and the next read starts after it', () => {
    const index = new IncidentFactsIndex();
    applyTo(index, [
      { facts: facts('INC-1', 'not a time'), position: 1n },
      { facts: facts('INC-2', '2026-12-01T10:00:00.000Z'), position: 2n },
    ]);
    expect(ids(index, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', [])).toEqual(['INC-2']);
    expect([index.position, index.size]).toEqual([2n, 1]);
  });

  it('catches up read by read until a read answers fewer than asked, or starts where the last did (a store holding back what is still landing)', async () => {
    const all = ['1', '2', '3', '4', '5'].map((n, i) => ({ facts: facts(`INC-${n}`, '2026-12-01T10:00:00.000Z'), position: BigInt(i + 1) }));
    const asked: bigint[] = [];
    const after = (position: bigint, limit: number) => all.filter((change) => change.position > position).slice(0, limit);
    // Answers every change, but holds the next read at position 2, as MongoDB at its checkpoint.
    const holdingBack = {
      changedSince: async (position: bigint, limit: number) => {
        asked.push(position);
        return { changes: after(position, limit), readTo: position < 2n ? 2n : position };
      },
    };
    const index = new IncidentFactsIndex();
    await index.catchUp(holdingBack, 2);
    expect([asked, index.position, index.size]).toEqual([[0n, 2n], 2n, 4]);
    const whole = {
      changedSince: async (position: bigint, limit: number) => {
        const changes = after(position, limit);
        return { changes, readTo: changes.at(-1)?.position ?? position };
      },
    };
    await index.catchUp(whole, 2);
    expect([index.position, index.size]).toEqual([5n, 5]);
  });

  it('moves an incident whose visibility or declaration a change moved, and tells the callers of both levels', () => {
    const index = new IncidentFactsIndex();
    applyTo(index, [{ facts: facts('INC-1', '2026-12-01T10:00:00.000Z', { visibility: 'internal' }), position: 1n }]);
    applyTo(index, [{ facts: facts('INC-1', '2026-12-02T10:00:00.000Z', { visibility: 'restricted' }), position: 2n }]);
    expect(ids(index, '2026-12-01T00:00:00.000Z', '2026-12-03T00:00:00.000Z', ['internal'])).toEqual([]);
    expect(ids(index, '2026-12-02T00:00:00.000Z', '2026-12-03T00:00:00.000Z', ['restricted'])).toEqual(['INC-1']);
    expect([index.lastChange(['internal']), index.size]).toEqual([2n, 1]);
  });
});

/** Changes as a read model answers them: incidents declared in any order, some changed again later; an incident's declaration and visibility are its own. */
const changes = fc
  .array(
    fc.record({
      incident: fc.integer({ min: 0, max: 40 }),
      acknowledgedAfter: fc.option(fc.integer({ min: 0, max: DAY_MS }), { nil: null }),
      outcome: fc.constantFrom('counted', 'canceled', 'duplicate'),
    }),
    { maxLength: 120 },
  )
  .map((drawn) =>
    drawn.map(({ incident, acknowledgedAfter, outcome }, i) => {
      // Declarations spread over 40 days, several in one millisecond; visibility by incident.
      const declaredMs = START + ((incident * 7919) % 40) * DAY_MS + (incident % 3);
      return {
        facts: facts(`INC-${incident}`, new Date(declaredMs).toISOString(), {
          visibility: [null, ...LEVELS][incident % 3],
          acknowledgedAt: acknowledgedAfter === null ? null : new Date(declaredMs + acknowledgedAfter).toISOString(),
          outcome: outcome as IncidentFacts['outcome'],
        }),
        position: BigInt(i + 1),
      };
    }),
  );

describe('IncidentFactsIndex, properties', () => {
  it('answers any window as filtering every incident as last changed would, however the changes are split into reads', () => {
    const window = fc.tuple(fc.integer({ min: -DAY_MS, max: 41 * DAY_MS }), fc.integer({ min: 0, max: 41 * DAY_MS })).map(([from, length]) => [START + from, START + from + length]);
    const levels = fc.subarray([...LEVELS]);
    fc.assert(
      fc.property(changes, fc.array(fc.nat({ max: 20 }), { maxLength: 10 }), fc.array(fc.tuple(window, levels), { minLength: 1, maxLength: 4 }), (all, cuts, asked) => {
        const index = new IncidentFactsIndex();
        // Windows asked between reads sort the copy while it still changes.
        let applied = 0;
        for (const cut of [...cuts, all.length]) {
          const upTo = Math.min(all.length, applied + cut);
          applyTo(index, all.slice(applied, upTo));
          applied = upTo;
          index.declaredIn(START, START + 41 * DAY_MS, [...LEVELS]);
        }
        const latest = new Map(all.map((change) => [change.facts.id, change]));
        expect(index.size).toBe(latest.size);
        expect(index.position).toBe(BigInt(all.length));
        for (const [[fromMs, toMs], cleared] of asked) {
          const visible = [...latest.values()].filter(({ facts: { visibility } }) => visibility === null || cleared.includes(visibility as (typeof LEVELS)[number]));
          const expected = visible.filter(({ facts: { declaredAt } }) => Date.parse(declaredAt) >= fromMs && Date.parse(declaredAt) < toMs).map(({ facts: now }) => measured(now));
          const found = index.declaredIn(fromMs, toMs, cleared);
          const byId = (list: MeasuredIncident[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
          expect(byId(found)).toEqual(byId(expected));
          expect(index.lastChange(cleared)).toBe(visible.reduce((max, { position }) => (position > max ? position : max), 0n));
        }
      }),
    );
  });
});
