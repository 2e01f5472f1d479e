import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { answerOnce } from '../serve';

export interface QuickCheckData {
  file: string;
}

export interface QuickCheckAnswer {
  /** What quick_check found wrong; empty when the file is sound. */
  problems: string[];
}

/** quick_check on a fresh read-only connection: it reads what is on disk, not a connection's page cache. */
answerOnce((): QuickCheckAnswer => {
  const { file } = workerData as QuickCheckData;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const lines = (db.prepare('PRAGMA quick_check').pluck().all() as string[]).flatMap((row) => row.split('\n'));
    // "ok" when sound; a row may hold several lines, some only headings ("*** in database main ***").
    return { problems: lines.filter((line) => line !== 'ok' && !line.startsWith('***')) };
  } finally {
    db.close();
  }
});
