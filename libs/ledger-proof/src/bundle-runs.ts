import { checkEvents, claimedPosition, type LedgerBundle } from './bundle';
import type { LedgerEvent } from './committed-form';

/** A bundle's JSON text cut around its events: the rest of the bundle, and runs of whole events. */
export interface BundleOutline {
  /** The bundle with an empty events array: JSON text to parse for its format, incident, head and keys. */
  rest: string;
  /** Byte ranges of runs of events, in order: each the JSON of whole events separated by commas, none empty. */
  runs: { start: number; end: number }[];
}

/** The bytes of JSON's structure that the scan looks for. */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The index of the quote closing the string opened at `open`, or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let at = open + 1;
  for (;;) {
    at = bytes.indexOf(QUOTE, at);
    if (at < 0) return -1;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at++;
  }
}

/**
 * Finds, in the UTF-8 JSON text of a bundle, its one top-level `events` array and cuts it into
 * about `runs` runs of whole events at commas between them, so that runs can be parsed and
 * checked apart. Only strings and brackets are followed (strings hopped with indexOf); whether
 * the text is JSON is left to parsing the rest and each run, which together parse exactly the
 * text. Undefined for anything this cannot cut soundly (no or several `events` members, a
 * top-level member name with an escape, an empty or unbalanced array): the caller parses the
 * whole text instead.
 */
export function outlineBundleText(bytes: Uint8Array, runs: number): BundleOutline | undefined {
  let at = 0;
  while (at < bytes.length && isSpace(bytes[at])) at++;
  if (bytes[at] !== OPEN_OBJECT) return undefined;
  let depth = 0;
  let expectName = false;
  let eventsNext = false;
  let events: { open: number; close: number; cuts: number[] } | undefined;
  let eventsOpen = -1;
  let nextCut = 0;
  const cuts: number[] = [];
  const step = Math.max(1, Math.floor(bytes.length / Math.max(1, runs)));
  for (; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) {
      const end = stringEnd(bytes, at);
      if (end < 0) return undefined;
      if (depth === 1 && expectName) {
        if (bytes.subarray(at, end).includes(BACKSLASH)) return undefined;
        const isEvents = end - at === 7 && Buffer.from(bytes.buffer, bytes.byteOffset + at + 1, 6).toString('latin1') === 'events';
        if (isEvents && (events || eventsOpen >= 0)) return undefined;
        eventsNext = isEvents;
        expectName = false;
      }
      at = end;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth++;
      if (depth === 2 && eventsNext) {
        if (byte !== OPEN_ARRAY) return undefined;
        eventsOpen = at;
        nextCut = at + step;
      }
      if (depth === 1) expectName = true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth === 2 && eventsOpen >= 0 && !events) events = { open: eventsOpen, close: at, cuts: cuts.splice(0) };
      depth--;
      if (depth < 0) return undefined;
    } else if (byte === COMMA) {
      if (depth === 1) {
        expectName = true;
        eventsNext = false;
      } else if (depth === 2 && eventsOpen >= 0 && !events && at >= nextCut) {
        cuts.push(at);
        nextCut = at + step;
      }
    } else if (byte !== COLON && !isSpace(byte) && depth === 1) {
      // A value other than an object, array or string: not the events member.
      eventsNext = false;
    }
  }
  if (!events || depth !== 0) return undefined;
  const bounds = [events.open, ...events.cuts, events.close];
  const ranges: { start: number; end: number }[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i] + 1;
    const end = bounds[i + 1];
    let first = start;
    while (first < end && isSpace(bytes[first])) first++;
    if (first === end) return undefined;
    ranges.push({ start, end });
  }
  const text = (start: number, end: number) => Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  return { rest: text(0, events.open + 1) + text(events.close, bytes.length), runs: ranges };
}

/** A run checked on its own: how many events it holds, where its first event claims to stand, its last hash and placeholder. */
export type RunOutcome =
  | { ok: true; count: number; first: { n: number; prev: string | null }; last: string | null; placeholder?: unknown }
  | { ok: false };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses and checks the events of one run. The first run starts the chain (n 1, prev null);
 * any other starts where its first event claims to, which `joinRuns` then holds to the runs
 * before it. Not ok for anything the whole bundle's check could report.
 */
export function checkRun(bytes: Uint8Array, run: { start: number; end: number }, index: number, incidentId: string, chain: unknown): RunOutcome {
  let events: unknown;
  try {
    events = JSON.parse(`[${Buffer.from(bytes.buffer, bytes.byteOffset + run.start, run.end - run.start).toString('utf8')}]`);
  } catch {
    return { ok: false };
  }
  if (!Array.isArray(events) || events.length === 0 || !events.every(isObject)) return { ok: false };
  const first = index === 0 ? { n: 1, prev: null } : claimedPosition(events[0] as LedgerEvent);
  if (!first) return { ok: false };
  const { failure, last, placeholder } = checkEvents(events as LedgerEvent[], { incidentId, chain, ...first });
  return failure ? { ok: false } : { ok: true, count: events.length, first, last, placeholder: placeholder.value };
}

/**
 * The last hash and number of events of runs that join into one chain: every run ok, each
 * starting at the position and hash the runs before it end at, every redacted member showing
 * the same placeholder. Undefined otherwise (the whole bundle's check then says where and why).
 */
export function joinRuns(outcomes: readonly RunOutcome[]): { n: number; last: string | null } | undefined {
  let n = 0;
  let last: string | null = null;
  let placeholder: unknown;
  for (const outcome of outcomes) {
    if (!outcome.ok || outcome.first.n !== n + 1 || outcome.first.prev !== last) return undefined;
    if (outcome.placeholder !== undefined) {
      if (placeholder !== undefined && outcome.placeholder !== placeholder) return undefined;
      placeholder = outcome.placeholder;
    }
    n += outcome.count;
    last = outcome.last;
  }
  return { n, last };
}

/** The bundle apart from its events (their array empty), if that is how the outline cut it. */
export function bundleRest(outline: BundleOutline): LedgerBundle | undefined {
  let rest: unknown;
  try {
    rest = JSON.parse(outline.rest);
  } catch {
    return undefined;
  }
  return isObject(rest) && Array.isArray(rest.events) && rest.events.length === 0 ? (rest as unknown as LedgerBundle) : undefined;
}
