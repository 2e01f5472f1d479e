import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import type { RedactedEntry } from '@im/policy';
import type { TimelineQuery } from '@im/read-models';
import { jsonObjectBody } from '../http/json-body.parser';

/** A timeline page's `limit`: the contract's default and bound (docs/api.md, 1–1000), not a tuning knob. */
export const DEFAULT_TIMELINE_LIMIT = 50;
export const MAX_TIMELINE_LIMIT = 1000;

/** A text filter's longest value: as long as the longest CloudEvent attribute the schema takes (cloud-event.schema.ts), a contract bound. */
const MAX_FILTER_TEXT_CHARS = 1024;

export const TIMELINE_ORDERS = ['asc', 'desc'] as const;
/** A search names at least one of these, so it never lists the whole ledger by accident. */
export const TIMELINE_SEARCH_CRITERIA = ['correlation_key', 'fingerprint', 'incident_id', 'type', 'actor'];
const TIMELINE_SEARCH_FIELDS = new Set([...TIMELINE_SEARCH_CRITERIA, 'from_time', 'to_time', 'limit', 'cursor', 'order']);

export const TYPE_PATTERN = /^im\.[A-Za-z0-9_.-]*\*?$|^\*$/;

/** The names a request uses for each filter: GET query parameters and the query body differ. */
interface FilterNames {
  /** Query-string values are all text, so a limit may arrive as "50"; in a JSON body it must be a number. */
  fromQueryString: boolean;
  incidentId?: string;
  correlationKey?: string;
  fingerprint?: string;
  type: string;
  actor: string;
  from: string;
  to: string;
}

const INCIDENT_TIMELINE_PARAMS: FilterNames = { fromQueryString: true, type: 'type', actor: 'actor', from: 'from', to: 'to' };
const QUERY_BODY_FIELDS: Required<FilterNames> = {
  fromQueryString: false,
  incidentId: 'incident_id',
  correlationKey: 'correlation_key',
  fingerprint: 'fingerprint',
  type: 'type',
  actor: 'actor',
  from: 'from_time',
  to: 'to_time',
};

function text(raw: Record<string, unknown>, name: string | undefined): string | undefined {
  if (name === undefined || raw[name] === undefined) return undefined;
  const value = raw[name];
  if (typeof value !== 'string' || value === '' || value.length > MAX_FILTER_TEXT_CHARS) {
    throw new InvalidError(`${name} must be a non-empty string`);
  }
  return value;
}

function timestamp(raw: Record<string, unknown>, name: string): string | undefined {
  const value = text(raw, name);
  if (value === undefined) return undefined;
  const utc = parseTimestamp(value);
  if (utc === undefined) throw new InvalidError(`${name} must be ${TIMESTAMP_RULE}`);
  return utc;
}

function limitOf(raw: unknown, fromQueryString: boolean): number {
  if (raw === undefined) return DEFAULT_TIMELINE_LIMIT;
  const limit = fromQueryString && typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_TIMELINE_LIMIT) {
    throw new InvalidError(`limit must be a whole number from 1 to ${MAX_TIMELINE_LIMIT}`);
  }
  return limit;
}

function typeOf(value: string | undefined, name: string): TimelineQuery['type'] {
  if (value === undefined || value === '*') return undefined;
  if (!TYPE_PATTERN.test(value)) {
    throw new InvalidError(`${name} must be an event type, optionally ending in * (e.g. im.incident.*)`);
  }
  return value.endsWith('*') ? { prefix: value.slice(0, -1) } : { exact: value };
}

/** A validated filter: the read-model query, and the cursor to resume after (opened by the reader, which knows the key). */
export interface TimelineFilter {
  query: TimelineQuery;
  cursor?: string;
}

/** Validates a timeline filter from query parameters or a query body into a read-model query. */
function parseTimelineFilter(raw: Record<string, unknown>, names: FilterNames, fixed: Partial<TimelineQuery> = {}): TimelineFilter {
  const order = raw.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new InvalidError(`order must be ${TIMELINE_ORDERS.join(' or ')}`);
  const shape: Omit<TimelineQuery, 'limit' | 'after'> = {
    incidentId: text(raw, names.incidentId),
    correlationKey: text(raw, names.correlationKey),
    fingerprint: text(raw, names.fingerprint),
    type: typeOf(text(raw, names.type), names.type),
    actor: text(raw, names.actor),
    from: timestamp(raw, names.from),
    to: timestamp(raw, names.to),
    order,
    ...fixed,
  };
  if (shape.from && shape.to && shape.from > shape.to) {
    throw new InvalidError(`${names.from} must not be after ${names.to}`);
  }
  for (const key of Object.keys(shape) as (keyof typeof shape)[]) if (shape[key] === undefined) delete shape[key];
  const { cursor } = raw;
  if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidError('cursor must be the next_cursor of the previous page');
  return { query: { ...shape, limit: limitOf(raw.limit, names.fromQueryString) }, cursor };
}

/** GET /api/v1/incidents/:id/timeline: the query parameters, within the incident of the path. */
export const parseIncidentTimelineQuery = (query: Record<string, unknown>, incidentId: string): TimelineFilter =>
  parseTimelineFilter(query, INCIDENT_TIMELINE_PARAMS, { incidentId });

/** POST /api/v1/timeline/query: the search body. */
export function parseTimelineSearch(body: unknown): TimelineFilter {
  const fields = jsonObjectBody(body);
  const unknown = Object.keys(fields).filter((key) => !TIMELINE_SEARCH_FIELDS.has(key));
  // A misspelt filter would silently widen the search, so it is refused.
  if (unknown.length) throw new InvalidError(`Unknown query field(s): ${unknown.join(', ')}`);
  if (!TIMELINE_SEARCH_CRITERIA.some((key) => fields[key] !== undefined)) {
    throw new InvalidError(`At least one of ${TIMELINE_SEARCH_CRITERIA.join(', ')} is required`);
  }
  return parseTimelineFilter(fields, QUERY_BODY_FIELDS);
}

type Filter = Exclude<keyof TimelineQuery, 'order' | 'limit' | 'after'>;

/**
 * What the caller is shown of the value each filter matches on; null where
 * redaction never hides it (the incident, the type and the time stay shown).
 * Every filter must be listed, so a new one needs a decision here.
 */
const SHOWN_VALUE: Record<Filter, ((shown: RedactedEntry) => string | undefined) | null> = {
  incidentId: null,
  type: null,
  from: null,
  to: null,
  actor: ({ entry, redacted }) => (redacted.includes('actor') ? undefined : entry.actor),
  correlationKey: ({ entry }) => entry.correlationKey,
  fingerprint: ({ entry }) => entry.fingerprint,
};

/**
 * Whether an event the store matched still matches as the caller is shown it:
 * a filter never matches a value the caller cannot see, so a right guess of a
 * redacted actor (or correlation key, or fingerprint) looks like a wrong one.
 * Built once per query: a page tests every event it reads, and most queries
 * set no filter that redaction can hide.
 */
export function matchesAsShown(query: TimelineQuery): (shown: { readonly entry: RedactedEntry }) => boolean {
  const checks = (Object.entries(SHOWN_VALUE) as [Filter, ((shown: RedactedEntry) => string | undefined) | null][]).flatMap(([filter, value]) =>
    value === null || query[filter] === undefined ? [] : [{ value, expected: query[filter] }],
  );
  // The entry is read only when a check needs it: an event shown unredacted is then never parsed.
  return (shown) => checks.every(({ value, expected }) => value(shown.entry) === expected);
}
