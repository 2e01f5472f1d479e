import { bundleRest, joinRuns, outlineBundleText, type RunOutcome } from './bundle-runs';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const runEvents = (text: string, run: { start: number; end: number }) => JSON.parse(`[${Buffer.from(text, 'utf8').subarray(run.start, run.end).toString('utf8')}]`) as unknown[];

describe('cutting a bundle text into runs of events', () => {
  // Strings that look like structure: a cut or a member name inside them would be wrong.
  const tricky = ['],"events":[{', '\\"}', '\\\\', 'a,b', '{"x":[1,2]}', 'ü€😀', '"', '\\'];
  const events = Array.from({ length: 40 }, (_, i) => ({ id: `e${i}`, data: { content: tricky[i % tricky.length], n: [i, { deep: [i] }] } }));
  const bundle = { format: 'im-ledger/1', incident_id: 'INC-1', events, head: { chain: 'internal', note: '"events":[1]' }, keys: [{ kid: 'k' }] };

  it.each([
    ['compact', JSON.stringify(bundle)],
    ['indented', JSON.stringify(bundle, null, 2)],
    ['events first, spaced oddly', ` { "events" : [ ${events.map((e) => JSON.stringify(e)).join(' ,\n ')} ] , "format":"im-ledger/1","incident_id":"INC-1","head":{},"keys":[] } `],
  ])('gives back every event once, in order, and the rest of the bundle (%s)', (_, text) => {
    const outline = outlineBundleText(bytes(text), 6)!;
    expect(outline.runs.length).toBeGreaterThan(3);
    expect(outline.runs.flatMap((run) => runEvents(text, run))).toEqual(events);
    const rest = JSON.parse(text) as Record<string, unknown>;
    expect(bundleRest(outline)).toEqual({ ...rest, events: [] });
  });

  it('cuts only where it is sure the text means what a parse of the whole means', () => {
    const events2 = JSON.stringify(events.slice(0, 2));
    // Two events members (a parse keeps the last), one spelt with an escape, none, an empty one, an object.
    expect(outlineBundleText(bytes(`{"events":${events2},"events":${events2}}`), 4)).toBeUndefined();
    expect(outlineBundleText(bytes(`{"events":${events2},"ev\\u0065nts":[]}`), 4)).toBeUndefined();
    expect(outlineBundleText(bytes('{"format":"im-ledger/1"}'), 4)).toBeUndefined();
    expect(outlineBundleText(bytes('{"events":[ ]}'), 4)).toBeUndefined();
    expect(outlineBundleText(bytes('{"events":{"a":1}}'), 4)).toBeUndefined();
    expect(outlineBundleText(bytes(`[${events2}]`), 4)).toBeUndefined();
    expect(outlineBundleText(bytes(`{"events":${events2}`), 4)).toBeUndefined();
    expect(outlineBundleText(bytes(`{"events":${events2},"x":"unterminated}`), 4)).toBeUndefined();
    // A member before events whose value is not the array is not it.
    expect(outlineBundleText(bytes(`{"events":null,"events":${events2}}`), 4)?.runs.flatMap((run) => runEvents(`{"events":null,"events":${events2}}`, run))).toEqual(events.slice(0, 2));
  });

  it('leaves broken JSON to the parses, which fail', () => {
    const text = `{"events":[{"id":1},{"id":2}x,{"id":3}],"format":"im-ledger/1"}`;
    const outline = outlineBundleText(bytes(text), 3);
    expect(outline && outline.runs.some((run) => {
      try {
        runEvents(text, run);
        return false;
      } catch {
        return true;
      }
    })).toBe(true);
  });
});

describe('joining runs', () => {
  const run = (n: number, prev: string | null, count: number, last: string, placeholder?: string): RunOutcome => ({ ok: true, count, first: { n, prev }, last, placeholder });

  it('joins runs that continue each other, and nothing else', () => {
    expect(joinRuns([run(1, null, 3, 'h3'), run(4, 'h3', 2, 'h5', '[REDACTED]'), run(6, 'h5', 1, 'h6', '[REDACTED]')])).toEqual({ n: 6, last: 'h6' });
    expect(joinRuns([run(1, null, 3, 'h3'), run(5, 'h3', 2, 'h6')])).toBeUndefined();
    expect(joinRuns([run(1, null, 3, 'h3'), run(4, 'hX', 2, 'h5')])).toBeUndefined();
    expect(joinRuns([run(2, 'h1', 3, 'h3')])).toBeUndefined();
    expect(joinRuns([run(1, null, 3, 'h3', '[REDACTED]'), run(4, 'h3', 2, 'h5', '***')])).toBeUndefined();
    expect(joinRuns([run(1, null, 3, 'h3'), { ok: false }])).toBeUndefined();
  });
});
