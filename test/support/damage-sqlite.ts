import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { checkpointWal } from './sqlite-checkpoint';

/**
 * Flips 64 bytes at the start of a table's or index's root page (its b-tree
 * header and cell pointers), after moving the WAL into the file as a clean
 * shutdown would, so the damage is what every reader finds.
 */
export async function flipRootPage(file: string, tree: string): Promise<void> {
  await checkpointWal(file);
  const db = new Database(file);
  let page: number;
  let pageSize: number;
  try {
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
