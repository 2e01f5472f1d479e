import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'api.pid';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The pid of a live api process serving this data directory, if any (a stale file from kill -9 is ignored). */
export function runningApiPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, LOCK_FILE), 'utf8'));
    return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Marks the data directory as served by this process until the returned release is called. */
export function markApiRunning(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}
