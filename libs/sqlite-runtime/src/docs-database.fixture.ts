import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * For a describe block: a file in a temporary directory with a table `docs`
 * (by default `(key, doc)`), and the service's side of it (a connection of its
 * own, in WAL mode), opened before the block's tests and removed after them.
 */
export function docsDatabase(
  prefix: string,
  columns = 'key TEXT PRIMARY KEY, doc TEXT NOT NULL',
): { dir: string; file: string; db: () => Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, 'read-models.sqlite');
  let db: Database.Database;
  beforeAll(() => {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE docs (${columns})`);
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, file, db: () => db };
}
