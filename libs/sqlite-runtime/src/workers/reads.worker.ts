import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { serveRequests } from '../serve';

/** How a read's rows come back: each row's one column (`pluck`), or each row as an array of its columns (`raw`). */
export type RowShape = 'pluck' | 'raw';

export interface ReadsData {
  file: string;
}

/** How long a read waits for a lock (a checkpoint that resets the WAL): as long as the read store's own connection waits. */
const BUSY_TIMEOUT_MS = 5000;

/** A read the worker runs. */
export interface ReadRequest {
  sql: string;
  params: unknown[];
  shape: RowShape;
}

/** The rows; none when the statement failed here (the store runs it again on its own connection, which raises the error where it belongs). */
export interface ReadAnswer {
  rows?: unknown[];
}

/**
 * A read-only connection to the file, its statements prepared once per text,
 * each read answered in the order asked. A read started after a commit of the
 * store's connection sees it (WAL: each read begins at the newest commit), so
 * read-your-writes holds as on that connection.
 */
const statements = new Map<string, Database.Statement>();
serveRequests(
  () => {
    const { file } = workerData as ReadsData;
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return db;
  },
  (db, { sql, params, shape }: ReadRequest): ReadAnswer => {
    try {
      const key = `${shape} ${sql}`;
      let statement = statements.get(key);
      if (!statement) statements.set(key, (statement = shape === 'pluck' ? db.prepare(sql).pluck() : db.prepare(sql).raw()));
      return { rows: statement.all(...params) };
    } catch {
      return {};
    }
  },
);
