import { Worker } from 'node:worker_threads';

/** The message that ends a serving worker. */
export const STOP = 'stop';

/**
 * The start of every SQLite worker of the embedded stores. The bundled api
 * has no file of its own for a worker, so a worker's code is evaluated, and
 * `loadDatabase()` finds better-sqlite3 in the entry script's node_modules
 * (or the working directory's). `serveRequests(open, handle)` is the worker
 * side of ServingSqliteWorker: `open(Database)` answers the connection,
 * `handle(db, request)` each request's answer.
 */
const PREAMBLE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const loadDatabase = () => {
  try { return createRequire(workerData.entry)('better-sqlite3'); } catch { return createRequire(process.cwd() + '/')('better-sqlite3'); }
};
const serveRequests = (open, handle) => {
  let db;
  try {
    db = open(loadDatabase());
  } catch (error) {
    parentPort.postMessage({ failed: { message: error.message, code: error.code } });
    process.exit(0);
  }
  parentPort.on('message', (request) => {
    if (request === '${STOP}') {
      db.close();
      parentPort.close();
      return;
    }
    // A batch of requests (those asked in one turn of the asker's event loop) is answered in one message.
    if (Array.isArray(request)) parentPort.postMessage(request.map((one) => ({ id: one.id, ...handle(db, one) })));
    else parentPort.postMessage({ id: request.id, ...handle(db, request) });
  });
  parentPort.postMessage({ ready: true });
};
`;

/** How a worker reports a failure: with SQLite's code (SQLITE_FULL, SQLITE_CORRUPT), so it is classified like any storage fault. */
export interface SqliteWorkerError {
  message: string;
  code?: string;
}

/** Starts `code` (plain JavaScript, after the preamble) in a worker thread with `workerData`. */
export function startSqliteWorker(code: string, workerData: Record<string, unknown>): Worker {
  return new Worker(PREAMBLE + code, { eval: true, workerData: { ...workerData, entry: process.argv[1] ?? `${process.cwd()}/` } });
}

/** The worker's failure as an Error carrying SQLite's code. */
export const sqliteWorkerError = ({ message, code }: SqliteWorkerError): Error => Object.assign(new Error(message), { code });

/**
 * Runs `code` in a worker thread that answers once: an answer with `error`
 * rejects with that error and its code, any other resolves; a thread that
 * fails, or ends without answering, rejects.
 */
export function askSqliteWorker<T extends object>(code: string, workerData: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = startSqliteWorker(code, workerData);
    worker.once('message', (answer: T & { error?: SqliteWorkerError }) =>
      answer.error ? reject(sqliteWorkerError(answer.error)) : resolve(answer),
    );
    worker.once('error', reject);
    // After an answer this changes nothing; without one the caller must not wait for ever.
    worker.once('exit', (exitCode) => reject(new Error(`a SQLite worker ended (exit code ${exitCode}) before it answered`)));
  });
}

/** Ready, could not open its file, or the answer to request `id`. */
type ServingWorkerMessage<Answer> = { ready: true } | { failed: SqliteWorkerError } | ({ id: number } & Answer) | ({ id: number } & Answer)[];

/** What a serving worker's failures are reported as: "<name> stopped (…); <fallback>". */
export interface ServingWorkerNames {
  /** "Background reads" */
  name: string;
  /** What happens instead, e.g. "lists are read on the event loop". */
  fallback: string;
}

/**
 * A worker thread that answers requests one by one, in the order asked: it
 * posts `{ready: true}` once serving, `{failed}` if it cannot open its file,
 * `{id, …answer}` per request, and ends on the message STOP. The requests
 * asked in one turn of the event loop go as one message (an array, answered
 * by an array): on a busy api a message each, and the thread woken for each,
 * cost more than the statements of a small read. The worker
 * starts with the first request; until it serves, and for good once it fails
 * or is closed, requests are answered undefined and the caller does the work
 * itself. It keeps the process alive only while a request waits.
 */
export class ServingSqliteWorker<Request extends object, Answer extends object> {
  private worker: Worker | undefined;
  private ready = false;
  private stopped = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: Answer | undefined) => void>();
  private queued: ({ id: number } & Request)[] = [];
  private ended: Promise<unknown> = Promise.resolve();
  /** Resolves true once the worker serves, false if it fails or is closed before. */
  private serving: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly code: string,
    private readonly workerData: Record<string, unknown>,
    private readonly names: ServingWorkerNames,
    private readonly onFailure: (message: string) => void,
  ) {}

  ask(request: Request): Promise<Answer | undefined> {
    if (!this.ready) {
      void this.start();
      return Promise.resolve(undefined);
    }
    const id = this.nextId++;
    if (this.waiting.size === 0) this.worker!.ref();
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      if (this.queued.length === 0) setImmediate(() => this.post());
      this.queued.push({ id, ...request });
    });
  }

  /** Sends the requests asked in this turn of the event loop as one message. */
  private post(): void {
    const batch = this.queued;
    this.queued = [];
    // Closed or failed since they were asked: the callers do them themselves.
    if (!this.ready) return batch.forEach(({ id }) => this.settle(id, undefined));
    this.worker!.postMessage(batch.length === 1 ? batch[0] : batch);
  }

  /** Ends the worker after the requests sent so far; none is sent after. */
  async close(): Promise<void> {
    if (!this.stopped && this.worker) {
      if (this.queued.length > 0) this.post();
      this.worker.ref();
      this.worker.postMessage(STOP);
    }
    this.stopped = true;
    this.ready = false;
    await this.ended;
  }

  /** Starts the worker now rather than with the first request; resolves whether it serves. */
  start(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    if (this.worker) return this.serving;
    const worker = startSqliteWorker(this.code, this.workerData);
    this.worker = worker;
    worker.unref();
    this.ended = new Promise((resolve) => worker.once('exit', resolve));
    let settle: (serving: boolean) => void;
    this.serving = new Promise((resolve) => (settle = resolve));
    worker.once('exit', () => settle(false));
    const { name, fallback } = this.names;
    worker.on('message', (message: ServingWorkerMessage<Answer>) => {
      if ('ready' in message) settle((this.ready = !this.stopped));
      else if ('failed' in message) this.fail(`${name} did not start (${message.failed.code ?? 'error'}: ${message.failed.message}); ${fallback}`);
      else if (Array.isArray(message)) message.forEach((answer) => this.answer(answer));
      else this.answer(message);
    });
    worker.on('error', (error) => this.fail(`${name} stopped (${error.message}); ${fallback}`));
    worker.on('exit', () => this.fail(this.stopped ? undefined : `${name} stopped (the worker ended); ${fallback}`));
    return this.serving;
  }

  private answer({ id, ...answer }: { id: number } & Answer): void {
    this.settle(id, answer as unknown as Answer);
  }

  private settle(id: number, answer: Answer | undefined): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker?.unref();
    resolve?.(answer);
  }

  /** Requests still waiting are answered undefined: the caller does them itself. */
  private fail(message: string | undefined): void {
    if (!this.stopped && message) this.onFailure(message);
    this.stopped = true;
    this.ready = false;
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }
}
