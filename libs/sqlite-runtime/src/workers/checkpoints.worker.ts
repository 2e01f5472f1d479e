import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { serveRequests } from '../serve';

export interface CheckpointsData {
  file: string;
  intervalMs: number;
}

/**
 * A PASSIVE checkpoint of the file every interval, on a connection of its
 * own: it waits for no reader or writer, and skips a WAL with nothing new.
 * It serves no request; STOP closes it.
 */
serveRequests(() => {
  const { file, intervalMs } = workerData as CheckpointsData;
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  // A checkpoint syncs the WAL before it copies pages, and the database file after.
  db.pragma('synchronous = NORMAL');
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy (another checkpoint runs), or a storage fault the store's own writes will report: again next time.
    }
  }, intervalMs);
  return {
    close: () => {
      clearInterval(timer);
      db.close();
    },
  };
}, () => ({}));
