import { type DocumentSchema, indexColumn } from '../projection';

// How the SQL stores (SQLite, PostgreSQL) name and index a read model's
// columns, from its declaration (documentSchema): the same names in both, so
// their lists (sql-lists.ts) are written once.

/** The column a query field or text is stored in: its name in snake_case (createdAt: created_at). */
export const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** An index's name: its table's, then the declared one (incidents_by_created). */
export const indexNameOf = (table: string, index: string) => `${table}_${index}`;

/** The declared indexes of a table, by name: each `CREATE INDEX` statement, a sparse one only over rows where its first column has a value. */
export function declaredIndexes(table: string, schema: DocumentSchema | undefined): Map<string, string> {
  const indexes = new Map<string, string>();
  for (const { name: index, on, sparse } of schema?.indexes ?? []) {
    const columns = on.map(indexColumn).map(({ column, descending }) => ({ name: columnOf(column), descending }));
    const where = sparse ? ` WHERE ${columns[0].name} IS NOT NULL` : '';
    const list = columns.map(({ name, descending }) => `${name}${descending ? ' DESC' : ''}`).join(', ');
    indexes.set(indexNameOf(table, index), `CREATE INDEX ${indexNameOf(table, index)} ON ${table} (${list})${where}`);
  }
  return indexes;
}
