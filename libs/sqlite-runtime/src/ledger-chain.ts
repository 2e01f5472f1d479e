import type { ChainHeads } from '@im/ledger-proof';
import { ServingWorker } from './worker-thread';
import type { ChainAnswer, ChainRequest } from './workers/ledger-chain.worker';

/**
 * The ledger's links (salts, commitments and hashes: a fifth of the main
 * thread's time in an alert storm) computed in a worker thread, off the event
 * loop (workers/ledger-chain.worker.ts). It is started with the store, and a
 * request made before it is ready waits for it. Once it fails (it could not
 * start, or ended: reported by `onFailure`), `chain` answers undefined and
 * the store chains on the main thread as before.
 */
export class LedgerChainWorker {
  private constructor(private readonly worker: ServingWorker<ChainRequest, ChainAnswer>) {}

  static start(onFailure: (message: string) => void = (message) => console.error(message)): LedgerChainWorker {
    const worker = new ServingWorker<ChainRequest, ChainAnswer>('ledger-chain', {}, { name: 'Ledger chaining', fallback: 'the ledger is chained on the event loop' }, onFailure, true);
    void worker.start();
    return new LedgerChainWorker(worker);
  }

  /** The records of each append (JSON), or undefined: chain them on the main thread. */
  async chain(heads: Map<string, ChainHeads>, appends: ChainRequest['appends']): Promise<string[][] | undefined> {
    return (await this.worker.ask({ heads: Object.fromEntries(heads), appends }))?.records;
  }

  stop(): Promise<void> {
    return this.worker.close();
  }
}
