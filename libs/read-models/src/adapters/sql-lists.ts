import type { MetricsOutcome, Severity } from '@im/incidents';
import type { IncidentListQuery } from '../incidents/incident-queries.port';
import type { ChangedFacts, ChangesRead } from '../metrics/incident-metrics-queries.port';
import type { TimelineQuery, TimelineRow } from '../timeline/timeline-queries.port';
import { type StoredDoc, storedTimelineRow } from '../timeline/timeline.projection';

// The lists of the SQL stores (SQLite, PostgreSQL): their conditions, order and
// keyset pages, written once with `?` placeholders over the declared columns
// (sql-schema.ts). A store adds its FROM (and SQLite its index hints) and, for
// PostgreSQL, numbers the placeholders.

/** The tail of a list's statement (`WHERE … ORDER BY … LIMIT ?`) and every parameter of it, the limit last. */
export interface ListClause {
  clause: string;
  params: unknown[];
}

/**
 * The one keyset page of the SQL stores: rows strictly after `after` in the
 * order of the two columns (the second breaks ties), both ascending or both descending.
 */
export function keysetPage(where: string[], params: unknown[], columns: [string, string], order: 'asc' | 'desc', after?: [unknown, unknown]): string {
  if (after) {
    where.push(`(${columns.join(', ')}) ${order === 'asc' ? '>' : '<'} (?, ?)`);
    params.push(...after);
  }
  const direction = order === 'asc' ? 'ASC' : 'DESC';
  return `${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${columns.map((column) => `${column} ${direction}`).join(', ')} LIMIT ?`;
}

/** `column IN (?, …)` with its parameters; no values: no row. */
export function isOneOf(where: string[], params: unknown[], column: string, values: readonly string[]): void {
  where.push(values.length ? `${column} IN (${values.map(() => '?').join(',')})` : 'FALSE');
  params.push(...values);
}

/** Incidents newest first, filtered by status, severity and visibility, keyset-paged; `where` may hold the caller's own condition. */
export function incidentPage(where: string[], params: unknown[], query: IncidentListQuery): ListClause {
  if (query.statuses?.length) isOneOf(where, params, 'status', query.statuses);
  if (query.severities?.length) isOneOf(where, params, 'severity', query.severities);
  if (query.visibleLevels) {
    // Declared without a visibility (null): every caller sees it.
    const levels: string[] = [];
    isOneOf(levels, params, 'visibility', query.visibleLevels);
    where.push(`(visibility IS NULL OR ${levels[0]})`);
  }
  const clause = keysetPage(where, params, ['created_at', 'key'], 'desc', query.after && [query.after.createdAt, query.after.id]);
  return { clause, params: [...params, query.limit] };
}

/** A timeline page in (event_time, position) order, either way; every filter has an index. */
export function timelinePage(query: TimelineQuery): ListClause {
  const where: string[] = [];
  const params: unknown[] = [];
  const equals = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    params.push(value);
  };
  equals('incident_id', query.incidentId);
  equals('correlation_key', query.correlationKey);
  equals('fingerprint', query.fingerprint);
  equals('actor', query.actor);
  if (query.type && 'exact' in query.type) equals('type', query.type.exact);
  if (query.type && 'prefix' in query.type && query.type.prefix !== '') {
    // A range on the type index; U+FFFF sorts after any character a type may hold.
    where.push(`type >= ? AND type < ?`);
    params.push(query.type.prefix, `${query.type.prefix}\uffff`);
  }
  if (query.from !== undefined) {
    where.push(`event_time >= ?`);
    params.push(query.from);
  }
  if (query.to !== undefined) {
    where.push(`event_time <= ?`);
    params.push(query.to);
  }
  const clause = keysetPage(where, params, ['event_time', 'position'], query.order, query.after && [query.after.eventTime, query.after.position]);
  return { clause, params: [...params, query.limit] };
}

/** What a timeline page reads beside the document: its columns, the policy's inputs as the JSON text they are kept as (null: none). */
export interface TimelineColumnValues {
  position: bigint;
  incidentId: string;
  eventTime: string;
  visibility: string | null;
  dataClass: string | null;
  view: string;
}

const parseJson = (text: string | null) => (text === null ? undefined : JSON.parse(text));

/** A timeline page's row from its columns; the document, or how to read it, for an event shown redacted. */
export const timelineRow = ({ position, incidentId, eventTime, visibility, dataClass, view }: TimelineColumnValues, doc: StoredDoc): TimelineRow =>
  storedTimelineRow(doc, position, { incidentId, eventTime, visibility: parseJson(visibility), dataClass: parseJson(dataClass), view });

/** The columns of the incident_metrics read model its changes are read from, in the order of `changedFactsOf`: every fact is a column, so no document is parsed. */
export const CHANGED_FACT_COLUMNS = 'key, declared_at, severity, service_id, visibility, outcome, acknowledged_at, resolved_at, escalated, alerts, position';

/** The statement of the incidents whose facts changed after a position, the earliest `limit` changes, from `table` (with SQLite's index hint). */
export function changedFacts(table: string, after: bigint, limit: number): { sql: string; params: unknown[] } {
  return { sql: `SELECT ${CHANGED_FACT_COLUMNS} FROM ${table} WHERE position > ? ORDER BY position LIMIT ?`, params: [after, limit] };
}

/** A read of the SQL stores, whose commits land whole and in log order: every change up to the last one answered has been. */
export const sqlChangesRead = (after: bigint, changes: ChangedFacts[]): ChangesRead => ({ changes, readTo: changes.length ? changes[changes.length - 1].position : after });

/** A row of CHANGED_FACT_COLUMNS, as an array; the integers as SQLite (number) or PostgreSQL (bigint) gives them. */
export type ChangedFactColumns = [string, string, string, string | null, string | null, string, string | null, string | null, number | bigint, number | bigint, number | bigint];

export const changedFactsOf = ([id, declaredAt, severity, serviceId, visibility, outcome, acknowledgedAt, resolvedAt, escalated, alerts, position]: ChangedFactColumns): ChangedFacts => ({
  facts: {
    id,
    declaredAt,
    severity: severity as Severity,
    serviceId,
    visibility,
    outcome: outcome as MetricsOutcome,
    acknowledgedAt,
    resolvedAt,
    escalated: Number(escalated) === 1,
    alerts: Number(alerts),
  },
  position: BigInt(position),
});
