import { Worker } from 'node:worker_threads';

/**
 * The start of every SQLite worker of the embedded stores. The bundled api
 * has no file of its own for a worker, so a worker's code is evaluated, and
 * `loadDatabase()` finds better-sqlite3 in the entry script's node_modules
 * (or the working directory's).
 */
const PREAMBLE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const loadDatabase = () => {
  try { return createRequire(workerData.entry)('better-sqlite3'); } catch { return createRequire(process.cwd() + '/')('better-sqlite3'); }
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

/**
 * Runs `code` in a worker thread that answers once: an answer with `error`
 * rejects with that error and its code, any other resolves; a thread that
 * fails, or ends without answering, rejects.
 */
export function askSqliteWorker<T extends object>(code: string, workerData: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = startSqliteWorker(code, workerData);
    worker.once('message', (answer: T & { error?: SqliteWorkerError }) =>
      answer.error ? reject(Object.assign(new Error(answer.error.message), { code: answer.error.code })) : resolve(answer),
    );
    worker.once('error', reject);
    // After an answer this changes nothing; without one the caller must not wait for ever.
    worker.once('exit', (exitCode) => reject(new Error(`a SQLite worker ended (exit code ${exitCode}) before it answered`)));
  });
}
