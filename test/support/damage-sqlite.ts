import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Flips 64 bytes at the start of a table's or index's root page (its b-tree
 * header and cell pointers), after moving the WAL into the file as a clean
 * shutdown would, so the damage is what every reader finds. A running
 * server's own connections may hold the WAL a moment after a write (its
 * background checkpoint, say: CI once saw busy here), so the checkpoint is
 * tried again, 40 times at most.
 */
export async function flipRootPage(file: string, tree: string): Promise<void> {
  const db = new Database(file);
  let page: number;
  let pageSize: number;
  try {
    for (let attempt = 0; ; attempt++) {
      const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (!checkpoint.busy) break;
      if (attempt === 40) throw new Error(`${file}: its WAL could not be checkpointed (tried 40 times; a reader holds it)`);
      await sleep(50);
    }
    page = db.prepare('SELECT rootpage FROM sqlite_schema WHERE name = ?').pluck().get(tree) as number;
    pageSize = db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
  const fd = openSync(file, 'r+');
  try {
    const bytes = Buffer.alloc(64);
    readSync(fd, bytes, 0, 64, (page - 1) * pageSize);
    writeSync(fd, bytes.map((b) => b ^ 0xff), 0, 64, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}
