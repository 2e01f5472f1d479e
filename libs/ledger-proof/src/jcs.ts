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

/** A key JavaScript puts before all others in any object, whatever the order it was set in. */
const isIndexLike = (key: string) => {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;
};

/** What the fast path leaves to canonicalize. */
class NotPlainJson extends Error {}

/** A copy with every object's members in code-unit order; throws for anything but parsed JSON. */
function sortedCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
      if (!(value as WellFormedString).isWellFormed()) throw new NotPlainJson();
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NotPlainJson();
      return value;
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return value;
      if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortedCopy(item)));
      if (!isPlainObject(value) || typeof value.toJSON === 'function') throw new NotPlainJson();
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort()) {
        if (value[key] === undefined) continue;
        // __proto__ would set the copy's prototype rather than make a member.
        if (!(key as WellFormedString).isWellFormed() || isIndexLike(key) || key === '__proto__') throw new NotPlainJson();
        copy[key] = sortedCopy(value[key]);
      }
      return copy;
    }
    default:
      throw new NotPlainJson();
  }
}

/**
 * canonicalize's algorithm on parsed JSON, done by JSON.stringify: for strings, finite numbers,
 * booleans and null it writes what canonicalize writes (canonicalize calls it for them), so
 * with every object's members put in order first, its output is the canonical text, several
 * times faster (jcs.spec.ts compares the two on generated values), which a verification of
 * 100,000 events needs. Anything else (toJSON, NaN, a lone surrogate, a cycle) goes to
 * canonicalize, which refuses or handles it, and so does an object with an integer-like key,
 * which JavaScript would put first whatever the order.
 */
function fastJcs(value: unknown): string | undefined {
  try {
    return JSON.stringify(sortedCopy(value));
  } catch (error) {
    if (error instanceof NotPlainJson) return undefined;
    throw error;
  }
}

/** RFC 8785 JSON Canonicalization Scheme. */
export function jcs(value: unknown): string {
  const text = fastJcs(value) ?? canonicalize(value);
  if (text === undefined) throw new Error('JCS: the value has no JSON form');
  return text;
}

/** canonicalize itself, the reference the fast path is held to. */
export const canonicalizeReference = (value: unknown): string | undefined => canonicalize(value);
