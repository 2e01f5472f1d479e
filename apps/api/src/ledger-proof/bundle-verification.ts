import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import {
  asBundle,
  bundleRest,
  checkRun,
  headVerdict,
  isChain,
  joinRuns,
  type LedgerBundle,
  type LedgerJwk,
  NotABundleError,
  outlineBundleText,
  type RunOutcome,
  verifyBundle,
  type Verdict,
} from '@im/ledger-proof';
import { startThread } from '@im/sqlite-runtime';

/** What a run checker thread is given: the bundle's bytes (shared, not copied), its runs, and the counter that hands them out. */
export interface RunCheckerData {
  bytes: Uint8Array;
  runs: { start: number; end: number }[];
  next: Int32Array;
  incidentId: string;
  chain: unknown;
}

/** Runs per thread: small enough that threads that start late still share the work evenly (docs/benchmarks.md, "Verifying a ledger bundle"). */
const RUNS_PER_THREAD = 32;
/** Threads beyond the main one: each starts its own module loading, which costs more than it saves past a few (docs/benchmarks.md, "Verifying a ledger bundle"). */
const MOST_HELPERS = 3;

/** Checks runs, taking the next unclaimed one each time, until none is left; reports each by `report`. */
export function checkRuns(data: RunCheckerData, report: (index: number, outcome: RunOutcome) => void): void {
  for (let index = Atomics.add(data.next, 0, 1); index < data.runs.length; index = Atomics.add(data.next, 0, 1)) {
    report(index, checkRun(data.bytes, data.runs[index], index, data.incidentId, data.chain));
  }
}

/** A helper thread, and when it ended (it may fail to start, or stop, at any time). */
export interface RunChecker {
  thread: Worker;
  ended: Promise<void>;
}

/**
 * A thread that checks runs; start it before reading the bundle. From the TypeScript sources
 * it loads them through tsx (startThread; esbuild: about 0.1 s to start, where ts-node took
 * 0.6 s, most of the time a 100,000-event bundle takes on two cores).
 */
function startHelper(): RunChecker {
  const thread = startThread(join(__dirname, 'bundle-runs.worker'));
  const ended = new Promise<void>((resolve) => {
    thread.once('error', () => resolve());
    thread.once('exit', () => resolve());
  });
  return { thread, ended };
}

/** Resolves once every run has an outcome, or every helper has said it is done or ended (one that fails leaves its runs without one). */
function allReported(helpers: RunChecker[], outcomes: (RunOutcome | undefined)[]): Promise<unknown> {
  const filled = new Promise<void>((resolve) => {
    for (const { thread } of helpers) {
      thread.on('message', (message: { index: number; outcome: RunOutcome } | 'done') => {
        if (message === 'done') return;
        outcomes[message.index] = message.outcome;
        if (outcomes.every(Boolean)) resolve();
      });
    }
  });
  const finished = helpers.map(({ thread, ended }) => Promise.race([ended, new Promise<void>((resolve) => thread.on('message', (message) => message === 'done' && resolve()))]));
  return Promise.race([filled, Promise.all(finished)]);
}

/** The whole bundle parsed and checked in order on this thread: what `npm run verify` did before, and the verdict whenever the runs do not join. */
function verifyWhole(bytes: Uint8Array, pinnedKeys?: readonly LedgerJwk[]): Verdict {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  return verifyBundle(asBundle(JSON.parse(text)), pinnedKeys);
}

/**
 * `verifyBundle` on a bundle's UTF-8 JSON text, its events checked in runs by this thread and
 * helper threads at once (each link needs only the hash the event before claims). The runs
 * are joined by their claimed positions and hashes; whenever they do not join (a bundle that
 * does not verify, or text the outline cannot cut), the whole bundle is checked in order on
 * this thread, so the verdict is always `verifyBundle`'s. Throws what JSON.parse and asBundle
 * throw for a text that is not a bundle.
 */
export async function verifyBundleBytes(read: Uint8Array, pinnedKeys?: readonly LedgerJwk[], helpers = startRunCheckers()): Promise<Verdict> {
  try {
    const outline = outlineBundleText(read, (helpers.length + 1) * RUNS_PER_THREAD);
    const rest = outline && bundleRest(outline);
    const bundle = rest && isBundle(rest);
    const chain = bundle?.head.chain;
    if (!outline || !bundle || !isChain(chain)) return verifyWhole(read, pinnedKeys);
    const bytes = read.buffer instanceof SharedArrayBuffer ? read : sharedCopy(read);
    const data: RunCheckerData = { bytes, runs: outline.runs, next: new Int32Array(new SharedArrayBuffer(4)), incidentId: bundle.incident_id, chain };
    const outcomes: (RunOutcome | undefined)[] = outline.runs.map(() => undefined);
    const reports = allReported(helpers, outcomes);
    for (const { thread } of helpers) thread.postMessage(data);
    checkRuns(data, (index, outcome) => (outcomes[index] = outcome));
    // Helpers still starting find nothing left to claim: waiting for them would only add their start.
    if (!outcomes.every(Boolean)) await reports;
    // A helper that failed mid-run left it unreported: checked here.
    for (let index = 0; index < outcomes.length; index++) outcomes[index] ??= checkRun(bytes, outline.runs[index], index, data.incidentId, chain);
    const joined = joinRuns(outcomes as RunOutcome[]);
    return joined ? headVerdict(bundle, chain, joined.n, joined.last, pinnedKeys) : verifyWhole(read, pinnedKeys);
  } finally {
    stopRunCheckers(helpers);
  }
}

/** The helper threads for verifyBundleBytes (one fewer than the cores, at most a few), starting. */
export const startRunCheckers = (): RunChecker[] => Array.from({ length: Math.min(availableParallelism() - 1, MOST_HELPERS) }, startHelper);

export const stopRunCheckers = (helpers: RunChecker[]): void => helpers.forEach(({ thread }) => void thread.terminate());

/** The bundle's outline as asBundle checks it, or undefined where asBundle on the whole text is to say why not. */
function isBundle(rest: LedgerBundle): LedgerBundle | undefined {
  try {
    return asBundle(rest);
  } catch (error) {
    if (error instanceof NotABundleError) return undefined;
    throw error;
  }
}

function sharedCopy(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  return shared;
}
