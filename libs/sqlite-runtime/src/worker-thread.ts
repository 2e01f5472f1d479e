import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { type Numbered, type ServingWorkerMessage, STOP, type SqliteWorkerError } from './messages';

/** The main thread's side of the workers: how one starts, and the two ways it is asked (once, or request by request). */

/** The workers, one file each: `workers/<name>.worker.ts`. */
export type WorkerName = 'checkpoints' | 'index-builds' | 'ledger-chain' | 'quick-check' | 'reads';

/**
 * Starts the module `path` (without its extension) in a thread of its own.
 * From the sources (tests, ts-node, `npm run verify`) this file is
 * TypeScript, and so is the module, run through tsx; in a built app this code
 * is part of the app's bundle, and the module is a `.js` bundle of its own.
 */
export function startThread(path: string, options: WorkerOptions = {}): Worker {
  if (__filename.endsWith('.ts')) return new Worker(`${path}.ts`, { ...options, execArgv: ['--require', require.resolve('tsx/cjs')] });
  return new Worker(`${path}.js`, options);
}

/** Starts `workers/<name>.worker` (in a built app, `workers/` beside the app's bundle: libs/sqlite-runtime/webpack.config.js). */
const startWorker = (name: WorkerName, workerData: unknown): Worker => startThread(join(__dirname, 'workers', `${name}.worker`), { workerData });

/** The worker's failure as an Error carrying SQLite's code. */
const sqliteWorkerError = ({ message, code }: SqliteWorkerError): Error => Object.assign(new Error(message), { code });

/**
 * Runs a worker that answers once: an answer with `error` rejects with that
 * error and its code, any other resolves; a thread that fails, or ends
 * without answering, rejects.
 */
export function askWorker<T extends object>(name: WorkerName, workerData: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(name, workerData);
    worker.once('message', (answer: T & { error?: SqliteWorkerError }) => (answer.error ? reject(sqliteWorkerError(answer.error)) : resolve(answer)));
    worker.once('error', reject);
    // After an answer this changes nothing; without one the caller must not wait for ever.
    worker.once('exit', (exitCode) => reject(new Error(`a SQLite worker ended (exit code ${exitCode}) before it answered`)));
  });
}

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
 * starts with the first request (or `start`); until it serves, requests are
 * answered undefined, or with `waitsUntilReady` wait for it; for good once it
 * fails or is closed, they are answered undefined and the caller does the
 * work itself. It keeps the process alive only while a request waits.
 */
export class ServingWorker<Request extends object, Answer extends object> {
  private worker: Worker | undefined;
  private ready = false;
  private stopped = false;
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: Answer | undefined) => void>();
  private queued: Numbered<Request>[] = [];
  private ended: Promise<unknown> = Promise.resolve();
  /** Resolves true once the worker serves, false if it fails or is closed before. */
  private serving: Promise<boolean> = Promise.resolve(false);

  constructor(
    private readonly name: WorkerName,
    private readonly workerData: Record<string, unknown>,
    private readonly names: ServingWorkerNames,
    private readonly onFailure: (message: string) => void,
    private readonly waitsUntilReady = false,
  ) {}

  async ask(request: Request): Promise<Answer | undefined> {
    if (!this.ready) {
      const starting = this.start();
      if (!this.waitsUntilReady || !(await starting) || !this.ready) return undefined;
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
    const worker = startWorker(this.name, this.workerData);
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

  private answer({ id, ...answer }: Numbered<Answer>): void {
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
