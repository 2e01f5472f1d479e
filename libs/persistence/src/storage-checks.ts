import { statfs } from 'node:fs/promises';
import { StorageError, storageError } from './storage-error';

/** A store kept in a SQLite file of DATA_DIR, its adapter's integrity check, and what to do when it finds the file damaged. */
export interface EmbeddedStoreFile {
  component: 'event_store' | 'read_store';
  file: string;
  /** The problems SQLite's quick_check finds in the file (SqliteEventStore's or SqliteReadStore's checkIntegrity). */
  quickCheck: (file: string) => Promise<string[]>;
  ifDamaged: string;
}

/** Resolves with a short report when the store's adapter finds its file sound; rejects with a StorageError saying what is damaged and what to do. */
export async function checkIntegrity({ file, quickCheck, ifDamaged }: EmbeddedStoreFile): Promise<string> {
  let problems: string[];
  try {
    problems = await quickCheck(file);
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
