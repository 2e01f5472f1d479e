import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describeVerdict, type LedgerJwk, NotABundleError } from '@im/ledger-proof';
import { startRunCheckers, stopRunCheckers, verifyBundleBytes } from './bundle-verification';

/**
 * `npm run verify -- <bundle.json> [--key <jwks.json or url>]`: checks a ledger bundle offline
 * (docs/api.md). Prints one line; exits 0 when intact, 1 when broken, 2 when the bundle or
 * the key cannot be read or is not one.
 */
export interface VerifyOutcome {
  code: 0 | 1 | 2;
  line: string;
}

const USAGE = 'usage: npm run verify -- <bundle.json> [--key <jwks.json or url>]';

class UnusableInputError extends Error {}

function parseArgs(args: string[]): { bundle: string; key?: string } {
  const rest = [...args];
  let key: string | undefined;
  const at = rest.indexOf('--key');
  if (at >= 0) {
    key = rest[at + 1];
    if (key === undefined) throw new UnusableInputError(USAGE);
    rest.splice(at, 2);
  }
  if (rest.length !== 1) throw new UnusableInputError(USAGE);
  return { bundle: rest[0], key };
}

async function readBytes(source: string, what: string): Promise<Uint8Array> {
  try {
    if (!/^https?:\/\//.test(source)) return await readFile(resolve(process.env.INIT_CWD ?? process.cwd(), source)); // npm runs scripts in the package's folder, not the caller's
    const response = await fetch(source);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new UnusableInputError(`cannot read ${what} ${source}: ${(error as Error).message}`);
  }
}

async function readJson(source: string, what: string): Promise<unknown> {
  const bytes = await readBytes(source, what);
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new UnusableInputError(`${what} ${source} is not JSON`);
  }
}

/** A JWK set, a list of JWKs or one JWK. */
function pinnedKeys(value: unknown, source: string): LedgerJwk[] {
  const keys = Array.isArray(value) ? value : typeof value === 'object' && value !== null && 'keys' in value ? (value as { keys: unknown }).keys : [value];
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'object' && k !== null)) throw new UnusableInputError(`key ${source} is not a JWK set`);
  return keys as LedgerJwk[];
}

export async function runVerify(args: string[]): Promise<VerifyOutcome> {
  let helpers;
  try {
    const { bundle: file, key } = parseArgs(args);
    helpers = startRunCheckers();
    const bytes = await readBytes(file, 'bundle');
    const keys = key === undefined ? undefined : pinnedKeys(await readJson(key, 'key'), key);
    let verdict;
    try {
      verdict = await verifyBundleBytes(bytes, keys, helpers);
    } catch (error) {
      if (error instanceof SyntaxError) throw new UnusableInputError(`bundle ${file} is not JSON`);
      if (error instanceof NotABundleError) throw new UnusableInputError(`${file} is not a ledger bundle: ${error.message}`);
      throw error;
    }
    return { code: verdict.intact ? 0 : 1, line: describeVerdict(verdict) };
  } catch (error) {
    if (error instanceof UnusableInputError) return { code: 2, line: error.message };
    throw error;
  } finally {
    if (helpers) stopRunCheckers(helpers);
  }
}

if (require.main === module) {
  void runVerify(process.argv.slice(2)).then(
    ({ code, line }) => {
      (code === 2 ? process.stderr : process.stdout).write(`${line}\n`);
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exitCode = 2;
    },
  );
}
