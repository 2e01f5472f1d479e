import { statfs } from 'node:fs/promises';
import { askSqliteWorker } from './sqlite-worker';
import { StorageError, storageError } from './storage-error';

/**
 * Runs SQLite's quick_check in a worker thread on a fresh read-only
 * connection: it reads what is on disk (not a connection's page cache) and
 * takes about a second per GB without stalling the event loop.
 */
const QUICK_CHECK = `
let db;
try {
  const Database = loadDatabase();
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const lines = db.prepare('PRAGMA quick_check').pluck().all().flatMap((row) => row.split('\\n'));
  // "ok" when sound; a row may hold several lines, some only headings ("*** in database main ***").
  parentPort.postMessage({ problems: lines.filter((line) => line !== 'ok' && !line.startsWith('***')) });
} catch (error) {
  parentPort.postMessage({ error: { message: error.message, code: error.code } });
} finally {
  db?.close();
}`;

function runQuickCheck(file: string): Promise<string[]> {
  return askSqliteWorker<{ problems: string[] }>(QUICK_CHECK, { file }).then(({ problems }) => problems);
}

/** Checks of one file in flight: concurrent validate calls share one. */
const inFlight = new Map<string, Promise<string[]>>();

/** What quick_check finds wrong with a SQLite file; empty when it is sound. */
function quickCheckProblems(file: string): Promise<string[]> {
  let check = inFlight.get(file);
  if (!check) {
    check = runQuickCheck(file).finally(() => inFlight.delete(file));
    inFlight.set(file, check);
  }
  return check;
}

/** Resolves with a short report when the file is sound; rejects with a StorageError saying what is damaged and what to do. */
export async function checkIntegrity(file: string, ifDamaged: string): Promise<string> {
  let problems: string[];
  try {
    problems = await quickCheckProblems(file);
  } catch (error) {
    throw storageError(file, error, ifDamaged);
  }
  if (problems.length === 0) return 'quick_check found no damage';
  throw new StorageError(`${file} is damaged: quick_check found ${problems.length} problem(s), the first: ${problems[0]}${ifDamaged}`);
}

/** Bytes an unprivileged process may still write on the volume holding `dir`, and its size. */
export async function freeSpace(dir: string): Promise<{ available: number; total: number }> {
  const stats = await statfs(dir);
  return { available: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
}
