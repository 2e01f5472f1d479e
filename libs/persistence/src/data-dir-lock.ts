import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storageFaultOf } from '@im/event-store';
import { StorageError, storageError } from './storage-error';

const LOCK_FILE = 'data-dir.lock';
/** Who holds the lock, for operators and refusal messages: written and removed only by an api holding it. */
const API_PID_FILE = 'api.pid';

/** Another live process holds the data directory's lock. */
export class DataDirInUseError extends StorageError {
  constructor(dataDir: string) {
    const pid = apiPid(dataDir);
    const holder = pid === undefined ? 'another process (a projections rebuild, or an api still starting)' : `the api (pid ${pid})`;
    super(`${dataDir} is in use by ${holder}: one data directory serves one process at a time, stop it first`);
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function apiPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, API_PID_FILE), 'utf8'));
    // A stale file (kill -9) names a dead process.
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export interface DataDirLock {
  release(): void;
}

/**
 * An exclusive OS lock on the data directory, held until release() or until
 * the process ends in any way (the kernel drops it on kill -9). Node has no
 * flock(), so SQLite takes the lock: in exclusive locking mode the fcntl lock
 * of a write transaction is kept until the connection closes, and another
 * process's attempt fails at once with SQLITE_BUSY. fcntl locks belong to the
 * process and vanish when any descriptor of the file closes: nothing else may
 * open the lock file in the holding process.
 *
 * `api` also writes api.pid, so the refusal can say which process to stop.
 */
export function lockDataDir(dataDir: string, holder: 'api' | 'rebuild'): DataDirLock {
  let db: Database.Database | undefined;
  try {
    db = new Database(join(dataDir, LOCK_FILE), { timeout: 0 });
    // The lock file holds no data: no rollback journal next to it.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (error) {
    db?.close();
    throw storageFaultOf(error)?.kind === 'busy' ? new DataDirInUseError(dataDir) : storageError(dataDir, error);
  }
  const lock = db;
  const pidFile = join(dataDir, API_PID_FILE);
  if (holder === 'api') {
    try {
      writeFileSync(pidFile, String(process.pid));
    } catch (error) {
      lock.close();
      throw storageError(pidFile, error);
    }
  }
  return {
    release: () => {
      // While still holding the lock: afterwards the file may already be the next holder's.
      if (holder === 'api') rmSync(pidFile, { force: true });
      lock.close();
    },
  };
}
