import type Database from 'better-sqlite3';
import { type DocumentSchema, type Projection, type QueryField, storedTexts } from '../../projection';
import { ReadModelCatchingUpError } from '../../projection-progress';
import { columnOf, declaredIndexes, indexNameOf } from '../sql-schema';

const jsonPath = (path: readonly string[]) =>
  `'$.${path.map((name) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name}"`)).join('.')}'`;

function columnExpression({ type, path, fallback }: QueryField): string {
  // `->` gives the value as JSON text (a string quoted, an array as written); json_extract gives SQL values.
  const read = (at: readonly string[]) => (type === 'json' ? `(doc -> ${jsonPath(at)})` : `json_extract(doc, ${jsonPath(at)})`);
  return fallback ? `coalesce(${read(path)}, ${read(fallback)})` : read(path);
}

const COLUMN_TYPES: Record<QueryField['type'], string> = { text: 'TEXT', integer: 'INTEGER', json: 'TEXT' };

/** The plain columns of a collection's texts, in declaration order (the fold computes them; SQLite cannot). */
const textColumnsOf = (schema: DocumentSchema | undefined) => Object.keys(schema?.texts ?? {}).map((name) => `${columnOf(name)} TEXT NOT NULL`);

/**
 * A collection is a table of JSON documents. Each query field is a generated
 * column, STORED: a filter or sort that touches many rows then reads no JSON.
 * Each declared text is a plain column beside them.
 */
function tableSql(name: string, schema: DocumentSchema | undefined): string {
  const columns = ['key TEXT PRIMARY KEY', 'position INTEGER NOT NULL', 'doc TEXT NOT NULL', ...textColumnsOf(schema)];
  for (const [field, declared] of Object.entries(schema?.fields ?? {})) {
    columns.push(`${columnOf(field)} ${COLUMN_TYPES[declared.type]} GENERATED ALWAYS AS (${columnExpression(declared)}) STORED`);
  }
  return `CREATE TABLE ${name} (${columns.join(', ')})`;
}

/**
 * Compares two CREATE statements by what follows the name: SQLite keeps the text
 * as written (whitespace included), and quotes the name of a renamed table.
 */
const bodyOf = (sql: string) => sql.slice(sql.indexOf('(')).replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ ([),])/g, '$1');
const sameDefinition = (stored: string, declared: string) => bodyOf(stored) === bodyOf(declared);
/** Whether a CREATE TABLE statement defines this column (pieces of a generated column's expression never equal a definition). */
const hasColumn = (table: string, column: string) => bodyOf(table).slice(1, -1).split(', ').includes(column);

/** A projection's table and indexes in one database: created, or brought to the declaration. */
export class SqliteCollection {
  readonly name: string;
  /** Writes a document by key: parameters key, position, then `written(doc)`. */
  readonly upsertSql: string;
  private readonly textColumns: string[];
  private readonly table: string;
  private readonly indexes: Map<string, string>;
  /** Between dropIndexes and sync (a bulk load): queries that need an index would scan the whole table. */
  private indexesDropped = false;

  constructor(
    private readonly db: Database.Database,
    private readonly projection: Projection<unknown>,
  ) {
    this.name = projection.name;
    this.textColumns = textColumnsOf(projection.schema);
    const written = ['doc', ...Object.keys(projection.schema?.texts ?? {}).map(columnOf)];
    this.upsertSql = `INSERT INTO ${this.name} (key, position, ${written.join(', ')}) VALUES (?, ?, ${written.map(() => '?').join(', ')})
       ON CONFLICT (key) DO UPDATE SET position = excluded.position, ${written.map((column) => `${column} = excluded.${column}`).join(', ')}`;
    this.table = tableSql(projection.name, projection.schema);
    this.indexes = declaredIndexes(projection.name, projection.schema);
  }

  /**
   * Makes the table and its indexes what the projection declares. A table
   * written by a version that declared other query fields is rebuilt in place:
   * its documents are copied into the new table, which computes the new
   * columns from them; the read model needs no replay. Indexes are dropped and
   * created to match (a rebuild cut short left some out: they come back here).
   * A table without one of the declared texts is emptied instead, with its
   * checkpoint and faults: the runner folds it again from the log.
   */
  sync(): void {
    const stored = this.db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).pluck().get(this.name) as string | undefined;
    this.db.transaction(() => {
      if (stored === undefined) this.db.exec(this.table);
      else if (!this.textColumns.every((column) => hasColumn(stored, column))) this.refold();
      else if (!sameDefinition(stored, this.table)) this.rebuild();
      const present = this.storedIndexes();
      for (const [name, sql] of present) if (!sameDefinition(sql, this.indexes.get(name) ?? '')) this.db.exec(`DROP INDEX ${name}`);
      for (const [name, sql] of this.indexes) if (!sameDefinition(present.get(name) ?? '', sql)) this.db.exec(sql);
    })();
    this.indexesDropped = false;
  }

  /** The values a write stores of a document: its JSON text, then its texts. */
  written(doc: unknown): string[] {
    return [JSON.stringify(doc), ...Object.values(storedTexts(this.projection.schema, doc))];
  }

  /** Every declared index (before a bulk load, which builds them once at the end). */
  dropIndexes(): void {
    for (const name of this.storedIndexes().keys()) this.db.exec(`DROP INDEX ${name}`);
    this.indexesDropped = true;
  }

  /**
   * Builds the declared indexes a bulk load dropped, then syncs: by `build`
   * (another connection, off the event loop) when given, else on this
   * connection one at a time with a turn of the event loop between them (a
   * store in memory has no file another connection could open). At a million
   * rows each takes a second or more; on this connection an api catching up
   * 1,000,000 events listened only once they were all built, about 20 s later
   * than with `build` (docs/benchmarks.md, "SQLite runtime: what each worker earns").
   */
  async restoreIndexes(build?: (statements: string[]) => Promise<void>): Promise<void> {
    const present = this.storedIndexes();
    const missing = [...this.indexes].filter(([name]) => !present.has(name)).map(([, sql]) => sql);
    if (build) await build(missing);
    else {
      for (const sql of missing) {
        this.db.exec(sql);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    this.sync();
  }

  /** Refuses a query while a bulk load has the indexes down (it would scan the table, or name a missing index). */
  requireIndexes(): void {
    if (this.indexesDropped) throw new ReadModelCatchingUpError(`The ${this.name} read model is catching up with the log; its indexes are rebuilt when it is done`);
  }

  /** An `INDEXED BY` clause for a declared index: the planner has no statistics to choose by. */
  indexedBy(index: string): string {
    this.requireIndexes();
    const name = indexNameOf(this.name, index);
    if (!this.indexes.has(name)) throw new Error(`${this.name} declares no index ${index}`);
    return `INDEXED BY ${name}`;
  }

  private refold(): void {
    this.db.exec(`DROP TABLE ${this.name}`);
    this.db.exec(this.table);
    this.db.prepare(`DELETE FROM checkpoints WHERE projection = ?`).run(this.name);
    this.db.prepare(`DELETE FROM projection_faults WHERE projection = ?`).run(this.name);
  }

  private rebuild(): void {
    const staging = `${this.name}__rebuild`;
    const kept = ['key', 'position', 'doc', ...this.textColumns.map((column) => column.split(' ')[0])].join(', ');
    this.db.exec(`DROP TABLE IF EXISTS ${staging}`);
    this.db.exec(this.table.replace(`CREATE TABLE ${this.name} (`, `CREATE TABLE ${staging} (`));
    this.db.exec(`INSERT INTO ${staging} (${kept}) SELECT ${kept} FROM ${this.name}`);
    this.db.exec(`DROP TABLE ${this.name}`);
    this.db.exec(`ALTER TABLE ${staging} RENAME TO ${this.name}`);
  }

  private storedIndexes(): Map<string, string> {
    const rows = this.db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
      .all(this.name) as { name: string; sql: string }[];
    return new Map(rows.map(({ name, sql }) => [name, sql]));
  }
}
