import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { asBundle, type EventFailure, firstEventFailure, type LedgerBundle, type LedgerJwk, placeholderOf, verifyBundle, type Verdict } from '@im/ledger-proof';

/** Events a thread checks at a time: small enough to share the work evenly, large enough that claiming costs nothing. */
const CHUNK = 1000;

/** Below this size a second thread costs more than it saves. */
export const PARALLEL_FROM_BYTES = 2 * 2 ** 20;

/**
 * What the threads share: [0] the next chunk to claim, [1] the position (1-based) of the
 * earliest failure found so far, 0 while none; a thread stops claiming past it.
 */
export type SharedProgress = Int32Array;

/** Checks chunks of the bundle's events until none is left (or all left lie past a failure found); the earliest failure this thread found. */
export function checkClaimedChunks(bundle: LedgerBundle, progress: SharedProgress): EventFailure | undefined {
  const placeholder = placeholderOf(bundle);
  const count = bundle.events.length;
  let found: EventFailure | undefined;
  for (;;) {
    const from = Atomics.add(progress, 0, 1) * CHUNK;
    const earliest = Atomics.load(progress, 1);
    if (from >= count || (earliest !== 0 && from >= earliest)) return found;
    const failure = firstEventFailure(bundle, from, Math.min(from + CHUNK, count), placeholder);
    if (failure && (!found || failure.n < found.n)) {
      found = failure;
      for (let seen = Atomics.load(progress, 1); seen === 0 || failure.n < seen; seen = Atomics.load(progress, 1)) {
        if (Atomics.compareExchange(progress, 1, seen, failure.n) === seen) break;
      }
    }
  }
}

/** The TypeScript of the worker and of what it imports, compiled by the ts-node that runs `npm run verify` (undefined elsewhere: one thread then). */
function compiledSources(entry: string): Record<string, string> | undefined {
  const tsNode = (process as unknown as Record<symbol, { compile(code: string, fileName: string): string } | undefined>)[Symbol.for('ts-node.register.instance')];
  if (!tsNode) return undefined;
  const libDir = dirname(require.resolve('@im/ledger-proof'));
  const files = [entry, join(__dirname, 'bundle-verification.ts'), ...readdirSync(libDir).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts')).map((f) => join(libDir, f))];
  return Object.fromEntries(files.map((file) => [file, tsNode.compile(readFileSync(file, 'utf8'), file)]));
}

/**
 * The worker's start: TypeScript files load from the sources compiled here (loading ts-node in
 * the worker would cost more than the work it takes over), `@im/*` through tsconfig-paths.
 */
const BOOT = `
const Module = require('node:module');
const { workerData } = require('node:worker_threads');
const compiled = workerData.compiled;
Module._extensions['.ts'] = (module, file) => {
  if (!(file in compiled)) throw new Error('bundle verification worker: ' + file + ' was not compiled');
  module._compile(compiled[file], file);
};
require(require.resolve('tsconfig-paths/register', { paths: [workerData.entry] }));
require(workerData.entry);
`;

/** A second thread that parses the same text and checks chunks alongside the caller; undefined where it cannot start cheaply. */
function startHelper(text: string, progress: SharedProgress): Promise<EventFailure | undefined> | undefined {
  const entry = join(__dirname, 'bundle-verification.worker.ts');
  const compiled = compiledSources(entry);
  if (!compiled) return undefined;
  const worker = new Worker(BOOT, { eval: true, workerData: { entry, compiled, text, progress } });
  return new Promise((resolve, reject) => {
    worker.once('message', (failure: EventFailure | null) => resolve(failure ?? undefined));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the bundle verification worker stopped (exit ${code})`)));
  });
}

/**
 * Parses a bundle's text and verifies it, on two threads for a large bundle: each parses the
 * text and they share the events' checks chunk by chunk; the verdict is the one a single
 * pass gives. Throws NotABundleError (or a JSON SyntaxError) for text that is not a bundle.
 */
export async function verifyBundleText(text: string, pinnedKeys?: readonly LedgerJwk[]): Promise<Verdict> {
  const progress: SharedProgress = new Int32Array(new SharedArrayBuffer(8));
  const helper = text.length >= PARALLEL_FROM_BYTES ? startHelper(text, progress) : undefined;
  // A rejected helper is ignored until awaited, and only awaited once this thread has a bundle.
  helper?.catch(() => undefined);
  let bundle: LedgerBundle;
  try {
    bundle = asBundle(JSON.parse(text));
  } catch (error) {
    // Not a bundle: the helper finds the same and ends; nothing waits for it.
    Atomics.store(progress, 0, 2 ** 30);
    throw error;
  }
  if (!helper) return verifyBundle(bundle, pinnedKeys);
  const mine = checkClaimedChunks(bundle, progress);
  const theirs = await helper;
  const failure = [mine, theirs].filter((f): f is EventFailure => f !== undefined).sort((a, b) => a.n - b.n)[0];
  return verifyBundle(bundle, pinnedKeys, failure);
}
