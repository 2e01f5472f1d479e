import type { SqliteBackgroundWrites, WriteStep } from '@im/read-models/sqlite';
import { ServingSqliteWorker, type SqliteWorkerError, sqliteWorkerError } from './sqlite-worker';

/**
 * The worker: a connection of its own to the file, with the settings of the
 * store's connection, its statements prepared once per text; each request is
 * one transaction, answered with each step's changes, or with SQLite's error
 * once the transaction is rolled back.
 */
const WRITER = `
const statements = new Map();
let transaction;
serveRequests(
  (Database) => {
    const db = new Database(workerData.file, { fileMustExist: true });
    db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = ' + workerData.autoCheckpointPages);
    transaction = db.transaction((steps) =>
      steps.map(([sql, params]) => {
        let statement = statements.get(sql);
        if (!statement) statements.set(sql, (statement = db.prepare(sql)));
        return (Array.isArray(params) ? statement.run(...params) : statement.run(params)).changes;
      }),
    );
    return db;
  },
  (db, { steps }) => {
    try {
      return { changes: transaction(steps) };
    } catch (error) {
      return { error: { message: error.message, code: error.code } };
    }
  },
);
`;

/**
 * The read models' writes (projection commits, the outbound deliveries'
 * attempts and checkpoints, notification decisions) run in a worker thread on
 * a connection of its own, so the statements and the commit leave the event
 * loop: in an alert storm the projections' commit was about a sixth of the
 * main thread's samples, in webhook delivery the attempts' commit a ninth
 * (docs/benchmarks.md, "Morning of 2026-11-27 (05:57-07:55)"); small ones
 * stay on the store's connection (inPlaceBelowSteps). The worker
 * starts with the first write; until it is ready, and for good once it
 * fails, writes run on the store's connection.
 */
export class BackgroundWrites implements SqliteBackgroundWrites {
  /**
   * A small transaction (a timeline append's projections: a dozen events, a
   * few dozen steps) is written in place: the hop there and back cost the
   * process more CPU than the commit, and every append waited on it. Timeline
   * appends at 32 connections: 10 of 12 alternated pairs faster, 8 % more
   * appends a second, 17 % less CPU per append; a storm's commits (200 steps
   * and more) and the delivery log's (about a thousand) still go to the worker
   * (docs/benchmarks.md, "Night of 2026-11-28").
   */
  readonly inPlaceBelowSteps = Number(process.env.SQLITE_RUNTIME_WRITES_BELOW ?? 100);
  private readonly worker: ServingSqliteWorker<{ steps: WriteStep[] }, { changes?: number[]; error?: SqliteWorkerError }>;

  constructor(file: string, autoCheckpointPages: number, onFailure: (message: string) => void, busyTimeoutMs = 5000) {
    this.worker = new ServingSqliteWorker(
      WRITER,
      { file, autoCheckpointPages, busyTimeoutMs },
      { name: 'Background writes', fallback: 'the read models are written on the event loop' },
      onFailure,
    );
  }

  async transaction(steps: WriteStep[]): Promise<number[] | undefined> {
    const answer = await this.worker.ask({ steps });
    if (answer?.error) throw sqliteWorkerError(answer.error);
    return answer?.changes;
  }

  close(): Promise<void> {
    return this.worker.close();
  }

  /** Starts the worker now rather than with the first write; resolves whether it serves. */
  start(): Promise<boolean> {
    return this.worker.start();
  }
}
