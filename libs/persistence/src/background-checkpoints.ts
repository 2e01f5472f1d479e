import type { Worker } from 'node:worker_threads';
import { type SqliteWorkerError, startSqliteWorker } from './sqlite-worker';

/** How often the worker copies what the WALs hold into the database files. */
export const CHECKPOINT_INTERVAL_MS = 100;

/**
 * WAL pages after which a commit of the service's own connection checkpoints
 * on its own (SQLite's default is 1000, 4 MB): only a safety net while the
 * worker runs, for when it falls behind a long burst of writes.
 */
export const FALLBACK_CHECKPOINT_PAGES = 16_000;

/**
 * The worker: one connection per file, a PASSIVE checkpoint of each every
 * interval (it waits for no reader or writer, and skips a file whose WAL has
 * nothing new).
 */
const CHECKPOINTER = `
const Database = loadDatabase();
const connections = [];
try {
  for (const file of workerData.files) {
    const db = new Database(file, { fileMustExist: true });
    connections.push(db);
    db.pragma('busy_timeout = 0');
    // A checkpoint syncs the WAL before it copies pages and the database file after.
    db.pragma('synchronous = NORMAL');
  }
} catch (error) {
  connections.forEach((db) => db.close());
  parentPort.postMessage({ error: { message: error.message, code: error.code } });
  process.exit(0);
}
const checkpoint = () => {
  for (const db of connections) {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      // Busy (another checkpoint runs) or a storage fault the service's own writes will report: try again next time.
    }
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  connections.forEach((db) => db.close());
  parentPort.close();
});
`;

/**
 * Checkpoints the WALs of the embedded stores' files in a worker thread, so
 * that copying committed pages into the database files, and the two syncs
 * that go with it, do not stall the event loop every 4 MB of writes (SQLite's
 * automatic checkpoint runs inside the commit that crosses the threshold).
 * What a checkpoint copies is already durable in the WAL: nothing about when
 * an append counts as stored changes.
 */
export class BackgroundCheckpoints {
  private readonly ended: Promise<unknown>;

  private constructor(private readonly worker: Worker) {
    this.ended = new Promise((resolve) => worker.once('exit', resolve));
  }

  /**
   * Starts the worker without waiting for it: start-up does not wait on it,
   * and should it fail (a file it cannot open), the service goes on with the
   * commits checkpointing on their own past FALLBACK_CHECKPOINT_PAGES.
   */
  static start(files: string[], onFailure: (message: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS): BackgroundCheckpoints {
    const worker = startSqliteWorker(CHECKPOINTER, { files, intervalMs });
    // Never what keeps the process alive.
    worker.unref();
    worker.on('message', ({ error }: { error?: SqliteWorkerError }) => {
      if (error) onFailure(`Background WAL checkpoints did not start (${error.code ?? 'error'}: ${error.message}); commits checkpoint on their own`);
    });
    worker.on('error', (error) => onFailure(`Background WAL checkpoints stopped (${error.message}); commits checkpoint on their own`));
    return new BackgroundCheckpoints(worker);
  }

  /** Closes the worker's connections; resolves once it has ended. */
  async stop(): Promise<void> {
    // Referenced again: an unreferenced worker would let the process end while the shutdown waits for it.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.ended;
  }
}
