/** What the two sides of a worker say to each other (worker-thread.ts, the main thread's side; serve.ts, the worker's). */

/** The message that ends a serving worker. */
export const STOP = 'stop';

/** How a worker reports a failure: with SQLite's code (SQLITE_FULL, SQLITE_CORRUPT), so it is classified like any storage fault. */
export interface SqliteWorkerError {
  message: string;
  code?: string;
}

/** What a serving worker posts: ready, could not open its file, or the answer to request `id` (a batch of requests is answered by an array). */
export type ServingWorkerMessage<Answer> = { ready: true } | { failed: SqliteWorkerError } | ({ id: number } & Answer) | ({ id: number } & Answer)[];

/** A request as it travels: with the id its answer comes back with. */
export type Numbered<Request> = { id: number } & Request;
