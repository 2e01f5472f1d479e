import { ServingWorker } from './worker-thread';
import type { CheckpointsData } from './workers/checkpoints.worker';

/** How often the worker copies what the WAL holds into the database file. */
const CHECKPOINT_INTERVAL_MS = 100;

/**
 * WAL pages after which a commit on the store's own connection checkpoints
 * anyway (SQLite's default is 1,000 pages, 4 MB): a safety net while the
 * worker runs, for a burst of writes it falls behind, and what holds if it
 * fails.
 */
const FALLBACK_CHECKPOINT_PAGES = 16_000;

/** The store's own connection, whose automatic checkpoint the worker takes over. */
export interface CheckpointedConnection {
  pragma(source: string): unknown;
}

/**
 * Checkpoints a file's WAL in a worker thread (workers/checkpoints.worker.ts),
 * so that copying committed pages into the database file, and the two syncs
 * that go with it, do not hold the event loop: SQLite's own checkpoint runs
 * inside the commit that crosses 1,000 pages, on the main thread. In an append
 * storm that was a sixth of the main thread's commit time ("SQLite runtime:
 * what each worker earns", docs/benchmarks.md). What a checkpoint copies is
 * already durable in the WAL, so when an append counts as stored does not
 * change. Starting it raises the store connection's `wal_autocheckpoint` to
 * FALLBACK_CHECKPOINT_PAGES.
 */
export class BackgroundCheckpoints {
  private constructor(private readonly worker: ServingWorker<object, object>) {}

  static start(file: string, connection: CheckpointedConnection, onFailure: (message: string) => void = (message) => console.error(message)): BackgroundCheckpoints {
    connection.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
    const data: CheckpointsData = { file, intervalMs: CHECKPOINT_INTERVAL_MS };
    const worker = new ServingWorker<object, object>(
      'checkpoints',
      { ...data },
      { name: 'Background WAL checkpoints', fallback: `commits checkpoint on their own every ${FALLBACK_CHECKPOINT_PAGES} pages` },
      onFailure,
    );
    void worker.start();
    return new BackgroundCheckpoints(worker);
  }

  /** Ends the worker; the store's connection, closed after, checkpoints what remains. */
  stop(): Promise<void> {
    return this.worker.close();
  }
}
