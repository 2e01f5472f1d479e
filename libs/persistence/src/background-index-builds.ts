import type { BulkLoadSettings } from '@im/read-models/sqlite';
import { askSqliteWorker } from './sqlite-worker';

/**
 * The worker: its own connection to the file, each CREATE INDEX a statement
 * of its own, as the service's connection would run them.
 */
const INDEX_BUILDER = `
let db;
try {
  const Database = loadDatabase();
  db = new Database(workerData.file, { fileMustExist: true });
  // It waits for a write of the service's connection as that connection waits for others.
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  // The sort that builds an index spills to temporary files past the cache: as much as the bulk load had.
  db.pragma('cache_size = ' + workerData.cacheSize);
  for (const sql of workerData.statements) db.exec(sql);
  parentPort.postMessage({ built: true });
} catch (error) {
  parentPort.postMessage({ error: { message: error.message, code: error.code } });
} finally {
  db?.close();
}`;

/**
 * Runs the CREATE INDEX statements that end a bulk catch-up in a worker
 * thread: at a million rows each takes a second or more of sorting, which on
 * the service's connection held the event loop (health checks, writes and
 * streams waited). Resolves once every index is committed; rejects with the
 * SQLite error (and its code) of the first that failed.
 */
export async function buildIndexesInWorker(file: string, statements: string[], { cacheSize, busyTimeoutMs }: BulkLoadSettings): Promise<void> {
  if (statements.length > 0) await askSqliteWorker(INDEX_BUILDER, { file, statements, cacheSize, busyTimeoutMs });
}
