import type { Pool, PoolClient } from 'pg';

/** One step of a component's schema: applied once, in `version` order, inside a transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Every component's migrations take this lock, so processes starting together apply each once.
const MIGRATIONS_LOCK = 0x696d6d69; // 'immi'

const RECORD_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  component text NOT NULL,
  version integer NOT NULL,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (component, version)
)`;

function checkNumbering(component: string, migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) throw new Error(`${component} migration ${migration.name} is numbered ${migration.version}, expected ${index + 1}`);
  });
}

async function appliedVersions(client: Pool | PoolClient, component: string): Promise<Set<number>> {
  const exists = await client.query<{ found: string | null }>(`SELECT to_regclass('schema_migrations')::text AS found`);
  if (!exists.rows[0].found) return new Set();
  const rows = await client.query<{ version: number }>('SELECT version FROM schema_migrations WHERE component = $1', [component]);
  return new Set(rows.rows.map((row) => row.version));
}

/**
 * Applies the component's migrations not yet recorded, each in the same
 * transaction as its record, under one advisory lock: idempotent, and safe when
 * several processes start at once on one database. Answers the versions applied now.
 */
export async function applyMigrations(pool: Pool, component: string, migrations: readonly Migration[]): Promise<number[]> {
  checkNumbering(component, migrations);
  const client = await pool.connect();
  // A connection lost while checked out emits here; unhandled it would end the process instead of failing this call.
  client.on('error', () => undefined);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATIONS_LOCK]);
    try {
      await client.query(RECORD_TABLE);
      const applied = await appliedVersions(client, component);
      const now: number[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)', [component, migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`${component} migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
        }
        now.push(migration.version);
      }
      return now;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATIONS_LOCK]);
    }
  } finally {
    client.release();
  }
}

/** The component's migrations the database has not recorded yet. */
export async function pendingMigrations(pool: Pool, component: string, migrations: readonly Migration[]): Promise<Migration[]> {
  const applied = await appliedVersions(pool, component);
  return migrations.filter((migration) => !applied.has(migration.version));
}

/** A component's schema in its database, as validate reports it. */
export interface SchemaStatus {
  component: string;
  /** The server that answered: its version and the database's name. */
  server: { version: string; database: string };
  /** How many migrations this build knows. */
  known: number;
  /** Of those, the ones the database has not recorded. */
  pending: Migration[];
  /** Versions recorded that this build does not know: a newer build migrated the database. */
  newer: number[];
}

/** Asks the server who it is, then which of the component's migrations it has recorded. */
export async function schemaStatus(pool: Pool, component: string, migrations: readonly Migration[]): Promise<SchemaStatus> {
  const [server] = (await pool.query<SchemaStatus['server']>(`SELECT current_setting('server_version') AS version, current_database() AS database`)).rows;
  const applied = await appliedVersions(pool, component);
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  const newer = [...applied].filter((version) => version > migrations.length).sort((a, b) => a - b);
  return { component, server, known: migrations.length, pending, newer };
}
