import { ServingWorker } from './worker-thread';
import type { ReadAnswer, ReadRequest, ReadsData, RowShape } from './workers/reads.worker';

export type { RowShape } from './workers/reads.worker';

/**
 * The read store's incident lists, loads of incidents by id, timeline
 * pages of up to 20 rows (the read store's BACKGROUND_PAGE_ROWS) and the
 * response metrics' changes run in a worker thread on a connection of its own. On the event loop their
 * statements cost more than their own time, because the rest of each request
 * evicts what SQLite keeps warm: off it, a list of 20 incidents took half the
 * main thread's CPU per request (docs/benchmarks.md, "SQLite runtime: what
 * each worker earns"; larger pages lost more to the hop than they saved). The worker starts with the first read, so a store
 * that serves none (the projector, a rebuild) never starts it; until it is
 * ready, and for good once it fails, reads run on the store's connection.
 */
export class BackgroundReads {
  private readonly worker: ServingWorker<ReadRequest, ReadAnswer>;

  constructor(file: string, onFailure: (message: string) => void) {
    this.worker = new ServingWorker('reads', { file } satisfies ReadsData, { name: 'Background reads', fallback: 'lists are read on the event loop' }, onFailure);
  }

  /** Answered undefined (not started yet, stopped, or the statement failed there), the read runs on the store's connection, which raises any error where it belongs. */
  async all(sql: string, params: unknown[], shape: RowShape): Promise<unknown[] | undefined> {
    return (await this.worker.ask({ sql, params, shape }))?.rows;
  }

  /** Ends the worker; a read still waiting runs on the store's connection. */
  close(): Promise<void> {
    return this.worker.close();
  }

  /** Starts the worker now rather than with the first read; resolves whether it serves. */
  start(): Promise<boolean> {
    return this.worker.start();
  }
}
