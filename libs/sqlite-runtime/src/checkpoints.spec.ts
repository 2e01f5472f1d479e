import { statSync } from 'node:fs';
import { BackgroundCheckpoints } from './checkpoints';
import { docsDatabase } from './docs-database.fixture';

const sizeOf = (file: string) => statSync(file).size;

async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe('BackgroundCheckpoints', () => {
  // The store's connection commits with its own checkpoint raised out of reach, as a store does while the worker runs.
  const { file, db } = docsDatabase('background-checkpoints-');
  const write = (prefix: string) => {
    const insert = db().prepare('INSERT INTO docs VALUES (?, ?)');
    db().transaction(() => {
      for (let i = 0; i < 500; i++) insert.run(`${prefix}-${i}`, 'x'.repeat(2000));
    })();
  };

  it('copies what the WAL holds into the database file while the store’s connection only commits', async () => {
    write('before');
    const unchecked = sizeOf(file);
    // About 1 MB committed (250 pages, below SQLite's own 1,000): in the WAL alone, the file still as the schema left it.
    expect(unchecked).toBeLessThan(100_000);
    const failures: string[] = [];
    const checkpoints = BackgroundCheckpoints.start(file, db(), (message) => failures.push(message));
    try {
      expect(await until(() => sizeOf(file) > 1_000_000)).toBe(true);
      write('while');
      expect(await until(() => sizeOf(file) > 2_000_000)).toBe(true);
    } finally {
      await checkpoints.stop();
    }
    expect(failures).toEqual([]);
  });

  it('reports that it could not start, and the store goes on', async () => {
    const failures: string[] = [];
    const checkpoints = BackgroundCheckpoints.start(`${file}.missing`, db(), (message) => failures.push(message));
    expect(await until(() => failures.length > 0)).toBe(true);
    expect(failures[0]).toMatch(/^Background WAL checkpoints did not start \(.*\); commits checkpoint on their own every 16000 pages$/);
    await checkpoints.stop();
  });
});
