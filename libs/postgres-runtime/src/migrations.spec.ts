import type { Pool } from 'pg';
import { temporaryDatabase, type TemporaryDatabase } from '../../../test/support/postgres-database';
import { applyMigrations, type Migration, pendingMigrations } from './migrations';
import { openPostgresPool } from './postgres-pool';

const first: Migration[] = [
  { version: 1, name: 'things', sql: 'CREATE TABLE things (id bigint PRIMARY KEY)' },
  { version: 2, name: 'thing names', sql: 'ALTER TABLE things ADD COLUMN name text' },
];

describe('PostgreSQL migrations', () => {
  let database: TemporaryDatabase;
  let pool: Pool;
  beforeAll(async () => {
    database = await temporaryDatabase('migrations');
    pool = openPostgresPool(database.url);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('applies each numbered migration once, whichever of several processes starting together gets there first', async () => {
    const others = [openPostgresPool(database.url), openPostgresPool(database.url)];
    const applied = await Promise.all([pool, ...others].map((p) => applyMigrations(p, 'things', first)));
    await Promise.all(others.map((p) => p.end()));
    expect(applied.flat().sort()).toEqual([1, 2]);
    expect(await applyMigrations(pool, 'things', first)).toEqual([]);
    expect((await pool.query('SELECT version, name FROM schema_migrations ORDER BY version')).rows).toEqual([
      { version: 1, name: 'things' },
      { version: 2, name: 'thing names' },
    ]);
    // Reads bigint columns as bigint.
    await pool.query(`INSERT INTO things VALUES (9007199254740993, 'past 2^53')`);
    expect((await pool.query('SELECT id FROM things')).rows[0].id).toBe(9007199254740993n);
  });

  it('reports what a newer build would apply, and leaves nothing of a migration that fails', async () => {
    const next = [...first, { version: 3, name: 'broken', sql: 'ALTER TABLE things ADD COLUMN size int; SELECT no_such_function()' }];
    expect((await pendingMigrations(pool, 'things', next)).map((m) => m.version)).toEqual([3]);
    await expect(applyMigrations(pool, 'things', next)).rejects.toThrow('things migration 3 (broken) failed: function no_such_function() does not exist');
    expect((await pool.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'things' AND column_name = 'size'`)).rows[0].n).toBe(0);
    expect((await pendingMigrations(pool, 'things', next)).map((m) => m.version)).toEqual([3]);
  });

  it('refuses migrations numbered out of order', async () => {
    await expect(applyMigrations(pool, 'gaps', [{ version: 2, name: 'two', sql: 'SELECT 1' }])).rejects.toThrow('gaps migration two is numbered 2, expected 1');
  });
});
