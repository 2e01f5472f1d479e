import { createRequire } from 'node:module';
import { join } from 'node:path';

/** String.prototype.isWellFormed (Node 20), past the ES2022 lib the project compiles against. */
type WellFormedString = string & { isWellFormed(): boolean };

type Canonicalize = (value: unknown) => string | undefined;

/**
 * canonicalize (RFC 8785, by one of its authors) ships only as an ES module whose
 * exports map has no `require` condition. Node >= 20.19 (the engines field) loads an
 * ES module by require() given its file, so the file is looked up along the
 * resolution paths and required natively.
 */
function loadCanonicalize(): Canonicalize {
  const nodeRequire = createRequire(__filename);
  for (const dir of nodeRequire.resolve.paths('canonicalize') ?? []) {
    try {
      return (nodeRequire(join(dir, 'canonicalize', 'lib', 'canonicalize.js')) as { default: Canonicalize }).default;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    }
  }
  throw new Error('the canonicalize package is not installed');
}

const canonicalize = loadCanonicalize();

const isPlainObject = (value: object): value is Record<string, unknown> => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/** What the fast path leaves to canonicalize. */
class NotPlainJson extends Error {}

/**
 * Members to write differently from the value's own: a string in place of the member's value,
 * `null` to leave the member out, or replacements inside it. `fresh` replacements stand for an
 * object of their members alone (the value's own member is not an object, or was replaced).
 */
export class Replacements {
  readonly members = new Map<string, string | null | Replacements>();
  constructor(readonly fresh = false) {}
}

const isPlainJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && isPlainObject(value) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';

/** What JSON.stringify escapes (quote, backslash, control characters) or may (surrogates): strings without any are written as they are. */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON.stringify writes it (and so canonicalize), quoting directly when nothing needs escaping (most strings, and over twice as fast). */
function stringText(value: string): string {
  if (!NEEDS_ESCAPING.test(value)) return `"${value}"`;
  const text = JSON.stringify(value);
  // JSON.stringify writes a lone surrogate as \u escape (canonicalize refuses it); without one the string is well formed.
  if (text.includes('\\u') && !(value as WellFormedString).isWellFormed()) throw new NotPlainJson();
  return text;
}

/** The canonical text of parsed JSON, members in code-unit order; throws for anything else. */
function canonicalText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return stringText(value);
    case 'number':
      if (!Number.isFinite(value)) throw new NotPlainJson();
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + (value[i] === undefined ? 'null' : canonicalText(value[i]));
        return `${text}]`;
      }
      if (!isPlainJsonObject(value)) throw new NotPlainJson();
      return objectText(value);
    }
    default:
      throw new NotPlainJson();
  }
}

/** A member name as JSON (`"name":`): the same few names come back event after event. */
const nameTexts = new Map<string, string>();
/** A bound on that map's memory: when full it is emptied and fills again. */
const NAMES_KEPT = 10_000;

function nameText(key: string): string {
  let text = nameTexts.get(key);
  if (text === undefined) {
    if (!(key as WellFormedString).isWellFormed()) throw new NotPlainJson();
    text = `${JSON.stringify(key)}:`;
    if (nameTexts.size >= NAMES_KEPT) nameTexts.clear();
    nameTexts.set(key, text);
  }
  return text;
}

/** An object's canonical text: its members sorted by code unit (sort's default order), with `replace`'s changes. */
function objectText(value: Record<string, unknown> | undefined, replace?: Replacements): string {
  const keys = value ? Object.keys(value) : [];
  if (replace) for (const key of replace.members.keys()) if (!value || !Object.prototype.hasOwnProperty.call(value, key)) keys.push(key);
  keys.sort();
  let text = '{';
  for (const key of keys) {
    const replacement = replace?.members.get(key);
    let member: string;
    if (replacement === null) continue;
    if (typeof replacement === 'string') member = canonicalText(replacement);
    else if (replacement) {
      // Only an own member is the value's (a __proto__ not set as a member would read Object.prototype).
      const inner = value && Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
      if (!replacement.fresh && typeof inner === 'object' && inner !== null && !Array.isArray(inner) && !isPlainJsonObject(inner)) throw new NotPlainJson();
      member = objectText(replacement.fresh || !isPlainJsonObject(inner) ? undefined : inner, replacement);
    } else {
      const inner = value![key];
      if (inner === undefined) continue;
      member = canonicalText(inner);
    }
    text += `${text.length > 1 ? ',' : ''}${nameText(key)}${member}`;
  }
  return `${text}}`;
}

/**
 * canonicalize's algorithm on parsed JSON, written directly: for strings, finite numbers,
 * booleans and null it writes what canonicalize writes (canonicalize calls JSON.stringify for
 * them), members in order, with no intermediate copies, several times faster (jcs.spec.ts
 * compares the two on generated values), which a verification of 100,000 events needs.
 * Anything else (toJSON, NaN, a lone surrogate, a cycle) goes to `fallback`.
 */
function fastJcs(write: () => string, fallback: () => string | undefined): string {
  let text: string | undefined;
  try {
    text = write();
  } catch (error) {
    if (!(error instanceof NotPlainJson)) throw error;
    text = fallback();
  }
  if (text === undefined) throw new Error('JCS: the value has no JSON form');
  return text;
}

/** JCS of an object with `replacements` applied, without building the changed object unless canonicalize must see it. */
export function jcsReplacing(value: Record<string, unknown>, replacements: Replacements, applied: () => unknown): string {
  return fastJcs(() => objectText(value, replacements), () => canonicalize(applied()));
}

/** RFC 8785 JSON Canonicalization Scheme. */
export function jcs(value: unknown): string {
  // A string (most commitments' values) needs no fallback closures.
  if (typeof value === 'string' && !NEEDS_ESCAPING.test(value)) return `"${value}"`;
  return fastJcs(() => canonicalText(value), () => canonicalize(value));
}

/** canonicalize itself, the reference the fast path is held to. */
export const canonicalizeReference = (value: unknown): string | undefined => canonicalize(value);
