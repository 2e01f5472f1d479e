import { statfs } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { StorageError, storageError } from './storage-error';

/**
 * Runs SQLite's quick_check in a worker thread on a fresh read-only
 * connection: it reads what is on disk (not a connection's page cache) and
 * takes about a second per GB without stalling the event loop. The bundled
 * api has no file of its own for a worker, so the code is evaluated, and
 * better-sqlite3 is loaded from the entry script's node_modules (or the
 * working directory's).
 */
const QUICK_CHECK = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
let db;
try {
  let Database;
  try { Database = createRequire(workerData.entry)('better-sqlite3'); } catch { Database = createRequire(process.cwd() + '/')('better-sqlite3'); }
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const lines = db.prepare('PRAGMA quick_check').pluck().all().flatMap((row) => row.split('\\n'));
  // "ok" when sound; a row may hold several lines, some only headings ("*** in database main ***").
  parentPort.postMessage({ problems: lines.filter((line) => line !== 'ok' && !line.startsWith('***')) });
} catch (error) {
  parentPort.postMessage({ error: { message: error.message, code: error.code } });
} finally {
  db?.close();
}`;

interface QuickCheckAnswer {
  problems?: string[];
  error?: { message: string; code?: string };
}

function runQuickCheck(file: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(QUICK_CHECK, { eval: true, workerData: { file, entry: process.argv[1] ?? `${process.cwd()}/` } });
    worker.once('message', ({ problems, error }: QuickCheckAnswer) => {
      if (problems) resolve(problems);
      // With its code (SQLITE_NOTADB, SQLITE_CORRUPT), so it is classified like any other storage fault.
      else reject(Object.assign(new Error(error?.message), { code: error?.code }));
    });
    worker.once('error', reject);
  });
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
