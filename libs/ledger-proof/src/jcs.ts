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

/**
 * RFC 8785 JSON Canonicalization Scheme. A string, most members' value, is what canonicalize
 * makes of it without the walk: refused with a lone surrogate, else JSON.stringify's form.
 */
export function jcs(value: unknown): string {
  if (typeof value === 'string' && (value as WellFormedString).isWellFormed()) return JSON.stringify(value);
  const text = canonicalize(value);
  if (text === undefined) throw new Error('JCS: the value has no JSON form');
  return text;
}
