import type { Worker } from 'node:worker_threads';
import type { RowShape, SqliteBackgroundReads } from '@im/read-models/sqlite';
import { type SqliteWorkerError, startSqliteWorker } from './sqlite-worker';

/** A read the worker runs; the message STOP ends it. */
interface ReadRequest {
  id: number;
  sql: string;
  params: unknown[];
  shape: RowShape;
}

const STOP = 'stop';

/** Ready, could not open the file, or a read's rows (none when it failed there). */
type WorkerMessage = { ready: true } | { failed: SqliteWorkerError } | { id: number; rows?: unknown[] };

/**
 * The worker: a read-only connection to the file, its statements prepared
 * once per text, each read answered in the order asked. A read started after
 * a commit of the service's connection sees it (WAL: each read begins at the
 * newest commit), so read-your-writes holds as on that connection.
 */
const READER = `
// background reads (bench/support/no-background-reads.preload.js recognises the worker by this line)
let db;
try {
  const Database = loadDatabase();
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
} catch (error) {
  parentPort.postMessage({ failed: { message: error.message, code: error.code } });
  process.exit(0);
}
const statements = new Map();
parentPort.on('message', (request) => {
  if (request === '${STOP}') {
    db.close();
    parentPort.close();
    return;
  }
  const { id, sql, params, shape } = request;
  try {
    const key = shape + ' ' + sql;
    let statement = statements.get(key);
    if (!statement) statements.set(key, (statement = shape === 'pluck' ? db.prepare(sql).pluck() : db.prepare(sql).raw()));
    parentPort.postMessage({ id, rows: statement.all(...params) });
  } catch {
    parentPort.postMessage({ id });
  }
});
parentPort.postMessage({ ready: true });
`;

/**
 * The read store's incident lists and small timeline pages run in a worker
 * thread on a connection of its own. On the event loop their statements cost more
 * than their own time: a list of 20 incidents took about 250 µs of the main
 * thread per request in the api, against 40-80 µs in a loop, because the rest
 * of each request evicts what SQLite keeps warm (docs/benchmarks.md, "Late
 * night of 2026-11-26"). The worker starts with the first read, so a store
 * that serves none (the projector, a rebuild) never starts it; until it is
 * ready, and for good once it fails, reads run on the store's connection.
 */
export class BackgroundReads implements SqliteBackgroundReads {
  private worker: Worker | undefined;
  private ready = false;
  private stopped = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (rows: unknown[] | undefined) => void>();
  private ended: Promise<unknown> = Promise.resolve();
  /** Resolves true once the worker serves, false if it fails or is closed before. */
  private serving: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly file: string,
    private readonly onFailure: (message: string) => void,
    private readonly busyTimeoutMs = 5000,
  ) {}

  async all(sql: string, params: unknown[], shape: RowShape): Promise<unknown[] | undefined> {
    if (!this.ready) {
      void this.start();
      return undefined;
    }
    const id = this.nextId++;
    // Referenced only while a read waits: an idle worker never keeps the process alive.
    if (this.waiting.size === 0) this.worker!.ref();
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker!.postMessage({ id, sql, params, shape } satisfies ReadRequest);
    });
  }

  /** Ends the worker; a read still waiting runs on the store's connection. */
  async close(): Promise<void> {
    if (!this.stopped && this.worker) {
      this.worker.ref();
      this.worker.postMessage(STOP);
    }
    this.stopped = true;
    this.ready = false;
    await this.ended;
  }

  /** Starts the worker now rather than with the first read; resolves whether it serves. */
  start(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (this.worker) return this.serving;
    const worker = startSqliteWorker(READER, { file: this.file, busyTimeoutMs: this.busyTimeoutMs });
    this.worker = worker;
    worker.unref();
    this.ended = new Promise((resolve) => worker.once('exit', resolve));
    let settle: (serving: boolean) => void;
    this.serving = new Promise((resolve) => (settle = resolve));
    worker.once('exit', () => settle(false));
    worker.on('message', (message: WorkerMessage) => {
      if ('ready' in message) settle((this.ready = !this.stopped));
      else if ('failed' in message) this.fail(`Background reads did not start (${message.failed.code ?? 'error'}: ${message.failed.message}); lists are read on the event loop`);
      else this.answer(message.id, message.rows);
    });
    worker.on('error', (error) => this.fail(`Background reads stopped (${error.message}); lists are read on the event loop`));
    worker.on('exit', () => this.fail(this.stopped ? undefined : 'Background reads stopped (the worker ended); lists are read on the event loop'));
    return this.serving;
  }

  /** Answered undefined, a read that failed in the worker runs again on the store's connection and fails there if it must. */
  private answer(id: number, rows: unknown[] | undefined): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    resolve?.(rows);
  }

  private fail(message: string | undefined): void {
    if (!this.stopped && message) this.onFailure(message);
    this.stopped = true;
    this.ready = false;
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }
}
