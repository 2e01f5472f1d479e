import { join } from 'node:path';
import { buildIndexesInWorker } from './index-builds';
import { docsDatabase } from './docs-database.fixture';

const SETTINGS = { cacheSize: -2000, busyTimeoutMs: 5000 };

describe('buildIndexesInWorker', () => {
  // The service's connection (connection()), open the whole time as in the api.
  const { dir, file, db: connection } = docsDatabase('background-index-builds-', 'key TEXT PRIMARY KEY, created_at TEXT NOT NULL, kind TEXT NOT NULL');
  let db: ReturnType<typeof connection>;
  beforeAll(() => {
    db = connection();
    const insert = db.prepare('INSERT INTO docs VALUES (?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 300_000; i++) insert.run(`k${i}`, new Date(Date.UTC(2026, 0, 1) + ((i * 7919) % 300_000) * 1000).toISOString(), i % 3 ? 'note' : 'alert');
    })();
  });

  const indexes = () => db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'docs' AND sql IS NOT NULL ORDER BY name`).pluck().all();

  it('builds the indexes on its own connection while the event loop goes on turning', async () => {
    let turns = 0;
    let built = false;
    const building = buildIndexesInWorker(file, ['CREATE INDEX docs_by_created ON docs (created_at DESC, key DESC)', 'CREATE INDEX docs_by_kind ON docs (kind, created_at)'], SETTINGS).then(() => {
      built = true;
    });
    // On the service's connection the sort of 300,000 rows would hold the loop until it ended.
    while (!built) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      turns++;
    }
    await building;
    expect(turns).toBeGreaterThan(1);
    // Committed, and seen by the service's connection.
    expect(indexes()).toEqual(['docs_by_created', 'docs_by_kind']);
    expect(db.prepare(`SELECT key FROM docs INDEXED BY docs_by_kind WHERE kind = 'alert' ORDER BY created_at LIMIT 1`).pluck().get()).toMatch(/^k\d+$/);
  });

  it("rejects with SQLite's code when a statement fails, keeping the indexes built before it", async () => {
    const failed = buildIndexesInWorker(file, ['CREATE INDEX docs_by_key_kind ON docs (key, kind)', 'CREATE UNIQUE INDEX docs_unique_kind ON docs (kind)'], SETTINGS);
    await expect(failed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(indexes()).toContain('docs_by_key_kind');
    expect(indexes()).not.toContain('docs_unique_kind');
  });

  it('rejects with a code for a file it cannot open', async () => {
    await expect(buildIndexesInWorker(join(dir, 'missing.sqlite'), ['CREATE INDEX x ON docs (kind)'], SETTINGS)).rejects.toMatchObject({ code: 'SQLITE_CANTOPEN' });
  });
});
