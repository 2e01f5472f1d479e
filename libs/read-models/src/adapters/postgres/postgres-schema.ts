import type { Pool, PoolClient } from 'pg';
import { inTransaction, type Migration } from '@im/postgres-runtime';
import type { DocumentWrite } from '../../projection-store.port';
import { type Projection, type QueryField, queryFieldValue, storedTexts } from '../../projection';
import { columnOf, declaredIndexes } from '../sql-schema';
import { rowsOf, type Statement } from './postgres-sql';

/**
 * The read store's schema comes in two parts.
 *
 * - The tables every read model shares and the ones no rebuild touches
 *   (checkpoints, faults, the record of each read model's table, outbound
 *   deliveries, notification decisions) are numbered migrations of the
 *   component `read_store`, applied at open and recorded in schema_migrations.
 * - Each read model's table and indexes are derived from its declaration
 *   (documentSchema) and synced at open, after the migrations, under an
 *   advisory lock, in one transaction: what was created is recorded in
 *   rm_schemas. A missing index (dropped by hand) comes back, one no longer
 *   declared goes; a table whose declared columns changed is created anew and
 *   its checkpoint and faults dropped, so the runner folds it again from the log
 *   (its columns are computed by the fold's code, which PostgreSQL cannot run).
 *
 * Migrations carry what a declaration cannot say; a read model's shape is said
 * once, in its projection, for every store.
 */
export const READ_STORE_COMPONENT = 'read_store';

/** Every text column compares and sorts by code point, as SQLite's BINARY does, whatever the database's collation. */
const TEXT = 'text COLLATE "C"';

export const READ_STORE_MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'checkpoints, faults, read model schemas, outbound deliveries, notifications',
    sql: `
      CREATE TABLE rm_checkpoints (projection ${TEXT} PRIMARY KEY, position bigint NOT NULL);
      CREATE TABLE rm_projection_faults (
        projection ${TEXT} NOT NULL, position bigint NOT NULL, event_id ${TEXT} NOT NULL, stream_id ${TEXT} NOT NULL,
        error text NOT NULL, first_seen ${TEXT} NOT NULL, last_seen ${TEXT} NOT NULL,
        PRIMARY KEY (projection, position)
      );
      CREATE TABLE rm_schemas (projection ${TEXT} PRIMARY KEY, table_sql text NOT NULL, indexes json NOT NULL, synced_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE ob_checkpoints (consumer ${TEXT} PRIMARY KEY, position bigint NOT NULL);
      CREATE TABLE ob_attempts (
        id ${TEXT} PRIMARY KEY, channel ${TEXT} NOT NULL, target_id ${TEXT} NOT NULL, event_id ${TEXT} NOT NULL, position bigint NOT NULL,
        message_id ${TEXT} NOT NULL, attempt integer NOT NULL, attempted_at ${TEXT} NOT NULL, status_code integer, error text, duration_ms integer NOT NULL
      );
      CREATE INDEX ob_attempts_by_target ON ob_attempts (channel, target_id, id);
      CREATE INDEX ob_attempts_by_position ON ob_attempts (channel, target_id, position);
      CREATE TABLE ob_resends (id ${TEXT} PRIMARY KEY, channel ${TEXT} NOT NULL, target_id ${TEXT} NOT NULL, attempt_id ${TEXT} NOT NULL, requested_at ${TEXT} NOT NULL);
      CREATE TABLE nt_notifications (
        id ${TEXT} PRIMARY KEY, responder ${TEXT} NOT NULL, incident_id ${TEXT} NOT NULL, channel ${TEXT} NOT NULL, trigger ${TEXT} NOT NULL,
        event_id ${TEXT} NOT NULL, position bigint NOT NULL, decision ${TEXT} NOT NULL, reason text, created_at ${TEXT} NOT NULL,
        sent_at ${TEXT}, due_at ${TEXT}, content json NOT NULL
      );
      CREATE INDEX nt_notifications_by_responder ON nt_notifications (responder, created_at, id);
      CREATE INDEX nt_notifications_due ON nt_notifications (channel, due_at) WHERE due_at IS NOT NULL;`,
  },
  {
    version: 2,
    name: 'leases',
    // A row per lease ever competed for; holder and times null while none holds it. generation is the fencing token.
    sql: `
      CREATE TABLE leases (
        name ${TEXT} PRIMARY KEY, holder_id ${TEXT}, holder_pid integer, holder_host text, holder_kind text,
        since timestamptz, expires_at timestamptz, generation bigint NOT NULL
      );`,
  },
];

/** A read model's table: `rm_` and its name (as MongoDB's collections). */
export const tableOf = (projection: string) => `rm_${projection}`;

/** json: the value's JSON text, as SQLite keeps it (jsonb would refuse a string holding U+0000). */
const COLUMN_TYPES: Record<QueryField['type'], { column: string; array: string }> = {
  text: { column: TEXT, array: 'text[]' },
  integer: { column: 'bigint', array: 'bigint[]' },
  json: { column: 'text', array: 'text[]' },
};

/**
 * A query field's value as its column holds it, as SQLite's json_extract
 * gives it: for `text`, a number as its JSON text and a boolean as 1 or 0;
 * for `integer`, a boolean as 1 or 0 (any other value that is no integer: none).
 */
function columnValue(type: QueryField['type'], value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const bit = typeof value === 'boolean' ? Number(value) : undefined;
  switch (type) {
    case 'text':
      return typeof value === 'string' ? value : String(bit ?? (typeof value === 'number' ? value : JSON.stringify(value)));
    case 'integer':
      return bit ?? (Number.isInteger(value) ? value : null);
    case 'json':
      return JSON.stringify(value);
  }
}

interface RecordedSchema {
  table_sql: string;
  indexes: Record<string, string>;
}

/** Serializes the sync of the declarations between processes opening one database together ('imrm'). */
const DECLARATIONS_LOCK = 0x696d726d;

/** A projection's table and indexes in PostgreSQL, derived from its declaration, and the statements that write its documents. */
export class PostgresCollection {
  readonly name: string;
  readonly table: string;
  readonly tableSql: string;
  readonly indexes: Map<string, string>;
  private readonly upsertSql: string;
  private readonly fields: [string, QueryField][];

  constructor(private readonly projection: Projection<unknown>) {
    this.name = projection.name;
    this.table = tableOf(projection.name);
    this.fields = Object.entries(projection.schema?.fields ?? {});
    const texts = Object.keys(projection.schema?.texts ?? {});
    // Written by each upsert, after key and position: the document, its texts, its query fields (computed here, by the fold's code).
    const written = [
      { name: 'doc', column: 'json NOT NULL', array: 'json[]' },
      ...texts.map((text) => ({ name: columnOf(text), column: 'text NOT NULL', array: 'text[]' })),
      ...this.fields.map(([field, { type }]) => ({ name: columnOf(field), ...COLUMN_TYPES[type] })),
    ];
    const columns = [`key ${TEXT} PRIMARY KEY`, 'position bigint NOT NULL', ...written.map(({ name, column }) => `${name} ${column}`)];
    this.tableSql = `CREATE TABLE ${this.table} (${columns.join(', ')})`;
    this.indexes = declaredIndexes(this.table, projection.schema);
    const arrays = ['text[]', 'bigint[]', ...written.map(({ array }) => array)].map((array, i) => `$${i + 1}::${array}`);
    const names = ['key', 'position', ...written.map(({ name }) => name)];
    this.upsertSql = `INSERT INTO ${this.table} (${names.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})
      ON CONFLICT (key) DO UPDATE SET ${names.slice(1).map((name) => `${name} = excluded.${name}`).join(', ')}`;
  }

  /** The statements that write these documents: one upsert and one delete at most; a key written twice keeps its last write. */
  writes(writes: DocumentWrite<unknown>[]): Statement[] {
    const last = new Map(writes.map((write) => [write.key, write]));
    const kept = [...last.values()].filter((write) => write.doc !== undefined);
    const removed = [...last.values()].filter((write) => write.doc === undefined).map((write) => write.key);
    const statements: Statement[] = [];
    if (removed.length) statements.push([`DELETE FROM ${this.table} WHERE key = ANY($1::text[])`, [removed]]);
    if (kept.length) {
      const texts = kept.map(({ doc }) => Object.values(storedTexts(this.projection.schema, doc)));
      statements.push([
        this.upsertSql,
        [
          kept.map(({ key }) => key),
          kept.map(({ position }) => position),
          kept.map(({ doc }) => JSON.stringify(doc)),
          ...Object.keys(this.projection.schema?.texts ?? {}).map((_, i) => texts.map((values) => values[i])),
          ...this.fields.map(([, field]) => kept.map(({ doc }) => columnValue(field.type, queryFieldValue(doc, field)))),
        ],
      ]);
    }
    return statements;
  }

  /** Brings the table and its indexes to the declaration (see the top of this file). */
  async sync(client: PoolClient, recorded: RecordedSchema | undefined, present: Set<string>): Promise<void> {
    const fresh = recorded?.table_sql !== this.tableSql;
    if (fresh) {
      await client.query(`DROP TABLE IF EXISTS ${this.table}`);
      await client.query(this.tableSql);
      await client.query('DELETE FROM rm_checkpoints WHERE projection = $1', [this.name]);
      await client.query('DELETE FROM rm_projection_faults WHERE projection = $1', [this.name]);
    }
    const stored = new Map(fresh ? [] : Object.entries(recorded?.indexes ?? {}));
    for (const name of fresh ? [] : present) {
      const declared = this.indexes.get(name);
      if (name !== `${this.table}_pkey` && (declared === undefined || stored.get(name) !== declared)) await client.query(`DROP INDEX ${name}`);
    }
    for (const [name, sql] of this.indexes) if (fresh || !present.has(name) || stored.get(name) !== sql) await client.query(sql);
    if (fresh || stored.size !== this.indexes.size || [...this.indexes].some(([name, sql]) => stored.get(name) !== sql)) {
      await client.query(
        `INSERT INTO rm_schemas (projection, table_sql, indexes) VALUES ($1, $2, $3)
         ON CONFLICT (projection) DO UPDATE SET table_sql = excluded.table_sql, indexes = excluded.indexes, synced_at = now()`,
        [this.name, this.tableSql, JSON.stringify(Object.fromEntries(this.indexes))],
      );
    }
  }
}

/** Syncs every read model's table and indexes with its declaration, once per database however many processes open it at once. */
export async function syncDeclarations(pool: Pool, collections: PostgresCollection[]): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [DECLARATIONS_LOCK]);
    const recorded = new Map(
      (await rowsOf<RecordedSchema & { projection: string }>(client, 'SELECT projection, table_sql, indexes FROM rm_schemas')).map((row) => [row.projection, row]),
    );
    const indexes = await rowsOf<{ tablename: string; indexname: string }>(client, 'SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema()');
    for (const collection of collections) {
      const present = new Set(indexes.filter(({ tablename }) => tablename === collection.table).map(({ indexname }) => indexname));
      await collection.sync(client, recorded.get(collection.name), present);
    }
  });
}
