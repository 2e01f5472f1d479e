import { askWorker } from './worker-thread';
import type { QuickCheckAnswer, QuickCheckData } from './workers/quick-check.worker';

/** Checks of one file in flight: concurrent validate calls share one. */
const inFlight = new Map<string, Promise<string[]>>();

/**
 * What SQLite's quick_check finds wrong with a file; empty when it is sound.
 * It runs in a worker thread on a fresh read-only connection: it reads what
 * is on disk (not a connection's page cache) and takes about a second per GB
 * without stalling the event loop. Rejects with SQLite's error (and its code)
 * when the file cannot be read.
 */
export function quickCheck(file: string): Promise<string[]> {
  let check = inFlight.get(file);
  if (!check) {
    check = askWorker<QuickCheckAnswer>('quick-check', { file } satisfies QuickCheckData)
      .then(({ problems }) => problems)
      .finally(() => inFlight.delete(file));
    inFlight.set(file, check);
  }
  return check;
}
