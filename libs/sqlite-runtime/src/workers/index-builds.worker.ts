import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { answerOnce } from '../serve';

export interface IndexBuildData {
  file: string;
  /** The CREATE INDEX statements, each run as a statement of its own, as the store's connection would. */
  statements: string[];
  /** The store's connection's `cache_size` during the bulk load: the sort that builds an index spills to temporary files past it. */
  cacheSize: number;
  /** It waits for a write of the store's connection as that connection waits for others. */
  busyTimeoutMs: number;
}

answerOnce(() => {
  const { file, statements, cacheSize, busyTimeoutMs } = workerData as IndexBuildData;
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma(`cache_size = ${cacheSize}`);
    for (const sql of statements) db.exec(sql);
    return { built: true };
  } finally {
    db.close();
  }
});
