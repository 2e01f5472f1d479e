import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Moves a SQLite file's WAL into the file and empties it, as a clean
 * shutdown would, through a connection of its own. A running server's
 * connections may hold the WAL a moment after a write (its background
 * checkpoint, say: CI once saw busy here), so it is tried again, 40 times at
 * most, 50 ms apart.
 */
export async function checkpointWal(file: string): Promise<void> {
  const db = new Database(file);
  try {
    for (let attempt = 0; ; attempt++) {
      const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!checkpoint.busy) return;
      if (attempt === 40) throw new Error(`${file}: its WAL could not be checkpointed (tried 40 times; a reader holds it)`);
      await sleep(50);
    }
  } finally {
    db.close();
  }
}
