import { parentPort, Worker } from 'node:worker_threads';
import type { ChainHeads, LedgerRecord } from '@im/ledger-proof';
import { chainLedger } from './ledger-chaining';

/** What the worker chains: a batch's appends in order, each stream starting from the heads given for it. */
interface ChainRequest {
  id: number;
  /** The heads of each stream before the batch. */
  heads: Record<string, ChainHeads>;
  appends: { streamId: string; bodies: string[] }[];
}

/** Each append's ledger records, as JSON. */
interface ChainAnswer {
  id: number;
  records?: string[][];
  error?: string;
}

const READY = 'ledger-chaining-ready';

/**
 * The body of the worker thread: answers each request with chainLedger's
 * records, each append continuing from the heads the one before it in the
 * same stream left. Called by the entry script when it runs as a worker.
 */
export function serveLedgerChaining(): void {
  const port = parentPort;
  if (!port) throw new Error('serveLedgerChaining runs in a worker thread');
  port.on('message', ({ id, heads, appends }: ChainRequest) => {
    try {
      const tips = new Map(Object.entries(heads));
      const records = appends.map(({ streamId, bodies }) => {
        const chained = chainLedger(tips.get(streamId) ?? {}, bodies.map((body) => JSON.parse(body)));
        tips.set(streamId, chained[chained.length - 1].heads);
        return chained.map((record) => JSON.stringify(record));
      });
      port.postMessage({ id, records } satisfies ChainAnswer);
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message } satisfies ChainAnswer);
    }
  });
  port.postMessage(READY);
}

/**
 * The ledger's links (salts, commitments and hashes: a fifth of the main
 * thread's time in an alert storm) computed in a worker thread, off the event
 * loop. The worker runs `entry`, a script that calls serveLedgerChaining()
 * when it is not the main thread (the api's bundle); it is started with the
 * store, and a request made before it is ready waits for it. Once it fails
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
    worker.on('message', (message: typeof READY | ChainAnswer) => {
      if (message === READY) return settle(true);
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

  static start(entry: string): LedgerChainWorker {
    return new LedgerChainWorker(new Worker(entry));
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
