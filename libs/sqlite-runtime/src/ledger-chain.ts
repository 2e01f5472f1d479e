import type { Worker } from 'node:worker_threads';
import type { ChainHeads } from '@im/ledger-proof';
import { startWorker } from './worker-thread';
import { CHAINING_READY } from './messages';
import type { ChainAnswer, ChainRequest } from './workers/ledger-chain.worker';

/**
 * The ledger's links (salts, commitments and hashes: a fifth of the main
 * thread's time in an alert storm) computed in a worker thread, off the event
 * loop (workers/ledger-chain.worker.ts). It is started with the store, and a
 * request made before it is ready waits for it. Once it fails
 * (it could not start, or ended), `chain` answers undefined and the store
 * chains on the main thread as before.
 */
export class LedgerChainWorker {
  private failed = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (records: string[][] | undefined) => void>();
  /** Resolves true once the worker serves, false if it fails first. */
  private readonly ready: Promise<boolean>;

  private constructor(private readonly worker: Worker) {
    worker.unref();
    let settle: (ready: boolean) => void;
    this.ready = new Promise((resolve) => (settle = resolve));
    worker.on('message', (message: typeof CHAINING_READY | ChainAnswer) => {
      if (message === CHAINING_READY) return settle(true);
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      // A request the worker could not answer is chained on the main thread, which raises the same error where it belongs.
      resolve?.(message.records);
    });
    const fail = () => {
      this.failed = true;
      settle(false);
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
  }

  static start(): LedgerChainWorker {
    return new LedgerChainWorker(startWorker('ledger-chain', undefined));
  }

  /** The records of each append (JSON), or undefined: chain them on the main thread. */
  async chain(heads: Map<string, ChainHeads>, appends: { streamId: string; bodies: string[] }[]): Promise<string[][] | undefined> {
    if (this.failed || !(await this.ready) || this.failed) return undefined;
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ id, heads: Object.fromEntries(heads), appends } satisfies ChainRequest);
    });
  }

  async stop(): Promise<void> {
    this.failed = true;
    await this.worker.terminate();
  }
}
