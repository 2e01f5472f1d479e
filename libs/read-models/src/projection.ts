import type { RecordedEvent } from '@im/event-store';

/**
 * A read model as a pure fold: each event names the document it changes and
 * `evolve` computes the new document. The runner loads and stores documents;
 * a projection never does I/O.
 */
export interface Projection<Doc> {
  /** Also the name of its collection and of its checkpoint. */
  readonly name: string;
  /** Key of the document the event changes, or undefined when the event does not concern this read model. */
  keyOf(event: RecordedEvent): string | undefined;
  /**
   * Documents are written once per event and never change (a ledger view).
   * The runner then skips loading them: writing the same document again is harmless.
   */
  readonly writeOnce?: boolean;
  /** New document (undefined: none/delete). Must be deterministic so a rebuild gives the same bytes. */
  evolve(doc: Doc | undefined, event: RecordedEvent): Doc | undefined;
  /** What the read model's queries filter and sort on; absent: documents are only found by key. */
  readonly schema?: DocumentSchema;
}

/**
 * A value a read model's queries filter or sort on, taken from its document.
 * Every store derives its own form from it: a generated column (SQLite), a
 * field beside the document (MongoDB), a column written beside it
 * (PostgreSQL). The fold stays the only code that shapes the document.
 */
export interface QueryField {
  /** `json`: the value as JSON text in SQLite and PostgreSQL (whatever its JSON type), the value itself in MongoDB. */
  type: 'text' | 'integer' | 'json';
  /** Property names from the document's root to the value. */
  path: readonly string[];
  /** Where the value is read when `path` holds none. */
  fallback?: readonly string[];
}

/** Columns an index or a sort may name besides the query fields: the document's key and the log position it was written at. */
export type StoreColumn = 'key' | 'position';

/** An index over query fields, in order; a leading `-` sorts that column descending. */
export interface DocumentIndex<Field extends string = string> {
  /** Unique within the read model; stores prefix it with the read model's name. */
  name: string;
  on: readonly (Field | StoreColumn | `-${Field | StoreColumn}`)[];
  /** Only documents where the first column has a value; where a store's planner can use that (SQLite, PostgreSQL). */
  sparse?: boolean;
}

/**
 * A text computed from the document when it is written and kept beside it, so
 * a read can answer with it without parsing the document. The fold's code
 * computes it, not the store: a store holding a read model written without one
 * of these texts empties it, and the runner folds it again from the log. So a
 * change to what a text holds gets a new name.
 */
export type StoredText = (doc: never) => string;

export interface DocumentSchema<Field extends string = string> {
  fields: Readonly<Record<Field, QueryField>>;
  indexes: readonly DocumentIndex<Field>[];
  texts?: Readonly<Record<string, StoredText>>;
}

/** Declares a read model's query fields and the indexes over them, checking that every index names a declared field. */
export const documentSchema = <Field extends string>(schema: {
  fields: Readonly<Record<Field, QueryField>>;
  indexes: readonly DocumentIndex<NoInfer<Field>>[];
  texts?: Readonly<Record<string, StoredText>>;
}): DocumentSchema => schema;

/** The texts a schema keeps beside each document, computed from one. */
export const storedTexts = (schema: DocumentSchema | undefined, doc: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(schema?.texts ?? {}).map(([name, text]) => [name, (text as (doc: unknown) => string)(doc)]));

/** The column an index entry names, and whether it sorts descending. */
export function indexColumn(entry: string): { column: string; descending: boolean } {
  return entry.startsWith('-') ? { column: entry.slice(1), descending: true } : { column: entry, descending: false };
}

/** The value of a query field in a document (null when absent), as a store that keeps fields beside the document computes it. */
export function queryFieldValue(doc: unknown, field: QueryField): unknown {
  return at(doc, field.path) ?? (field.fallback ? at(doc, field.fallback) : undefined) ?? null;
}

const at = (doc: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((value, name) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined), doc);
