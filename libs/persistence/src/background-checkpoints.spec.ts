import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackgroundCheckpoints } from './background-checkpoints';

describe('BackgroundCheckpoints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'background-checkpoints-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies what writers committed to the WAL into the database file while the writers never checkpoint, and stops', async () => {
    const files = ['a.sqlite', 'b.sqlite'].map((name) => join(dir, name));
    const writers = files.map((file) => {
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE rows (body TEXT NOT NULL)');
      return db;
    });
    const failures: string[] = [];
    const checkpoints = BackgroundCheckpoints.start(files, (message) => failures.push(message), 20);
    try {
      const before = files.map((file) => statSync(file).size);
      for (const db of writers) db.transaction(() => Array.from({ length: 500 }, (_, i) => db.prepare('INSERT INTO rows VALUES (?)').run(`row ${i} ${'x'.repeat(500)}`)))();
      const deadline = Date.now() + 5000;
      while (files.some((file, i) => statSync(file).size <= before[i] + 200_000) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // Each database file now holds the rows (about 250 kB), which only the worker can have copied there.
      files.forEach((file, i) => expect(statSync(file).size).toBeGreaterThan(before[i] + 200_000));
      expect(failures).toEqual([]);
    } finally {
      await checkpoints.stop();
      writers.forEach((db) => db.close());
    }
  });

  it('reports a file it cannot open and ends, leaving the service to checkpoint on its own', async () => {
    const failures: string[] = [];
    const checkpoints = BackgroundCheckpoints.start([join(dir, 'missing.sqlite')], (message) => failures.push(message));
    const deadline = Date.now() + 5000;
    while (failures.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(failures).toEqual([expect.stringMatching(/^Background WAL checkpoints did not start \(SQLITE_CANTOPEN: .+\); commits checkpoint on their own$/)]);
    await checkpoints.stop();
  });
});
