import type { Pool, PoolClient } from 'pg';

/** Where a statement runs: the pool (a read, on any connection) or a transaction's connection. */
export type Queryable = Pool | PoolClient;

/** One statement of a write and its parameters. */
export type Statement = [sql: string, params: unknown[]];

/**
 * PostgreSQL's text cannot hold U+0000, which SQLite's can and an event may
 * carry (in an actor, a fingerprint, an id): every string sent holds NUL as
 * U+0001 U+0001 and U+0001 as U+0001 U+0002, and every string read back is
 * turned back. The code keeps equality, prefixes and code-point order, so
 * filters, ranges and sorts answer as SQLite's do. JSON text never holds
 * either character raw (JSON.stringify escapes them), so documents pass unchanged.
 */
const storable = (text: string) => (/[\0\x01]/.test(text) ? text.replace(/[\0\x01]/g, (c) => (c === '\0' ? '\x01\x01' : '\x01\x02')) : text);
const readable = (text: string) => (text.includes('\x01') ? text.replace(/\x01([\x01\x02])/g, (_, c: string) => (c === '\x01' ? '\0' : '\x01')) : text);

const sent = (value: unknown): unknown => (typeof value === 'string' ? storable(value) : Array.isArray(value) ? value.map(sent) : value);

/** The rows a statement answers, each string column as it was sent. */
export async function rowsOf<Row>(db: Queryable, sql: string, params: unknown[] = []): Promise<Row[]> {
  const { rows } = await db.query(sql, params.map(sent));
  for (const row of rows as Record<string, unknown>[]) {
    for (const name in row) if (typeof row[name] === 'string') row[name] = readable(row[name]);
  }
  return rows as Row[];
}

/** The rows a statement answers as arrays of its columns (no object per row: for reads of many rows), each string as it was sent. */
export async function arrayRowsOf<Row extends unknown[]>(db: Queryable, sql: string, params: unknown[] = []): Promise<Row[]> {
  const { rows } = await db.query({ text: sql, values: params.map(sent), rowMode: 'array' });
  for (const row of rows as unknown[][]) {
    for (let i = 0; i < row.length; i++) if (typeof row[i] === 'string') row[i] = readable(row[i] as string);
  }
  return rows as Row[];
}

/** Runs a statement; answers how many rows it changed. */
export async function run(db: Queryable, [sql, params]: Statement): Promise<number> {
  return (await db.query(sql, params.map(sent))).rowCount ?? 0;
}

/** The shared lists' `?` placeholders (sql-lists.ts) as PostgreSQL's numbered ones. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
