import { BadRequestException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import type { TimelinePosition, TimelineQuery } from '@im/read-models';

export const DEFAULT_TIMELINE_LIMIT = 50;
export const MAX_TIMELINE_LIMIT = 1000;

const TYPE_PATTERN = /^im\.[A-Za-z0-9_.-]*\*?$|^\*$/;

/** The names a request uses for each filter: GET query parameters and the query body differ. */
export interface FilterNames {
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

export const INCIDENT_TIMELINE_PARAMS: FilterNames = { fromQueryString: true, type: 'type', actor: 'actor', from: 'from', to: 'to' };
export const QUERY_BODY_FIELDS: Required<FilterNames> = {
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
  if (typeof value !== 'string' || value === '' || value.length > 1024) {
    throw new BadRequestException(`${name} must be a non-empty string`);
  }
  return value;
}

function timestamp(raw: Record<string, unknown>, name: string): string | undefined {
  const value = text(raw, name);
  if (value === undefined) return undefined;
  const utc = parseTimestamp(value);
  if (utc === undefined) throw new BadRequestException(`${name} must be ${TIMESTAMP_RULE}`);
  return utc;
}

function limitOf(raw: unknown, fromQueryString: boolean): number {
  if (raw === undefined) return DEFAULT_TIMELINE_LIMIT;
  const limit = fromQueryString && typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_TIMELINE_LIMIT) {
    throw new BadRequestException(`limit must be a whole number from 1 to ${MAX_TIMELINE_LIMIT}`);
  }
  return limit;
}

function typeOf(value: string | undefined, name: string): TimelineQuery['type'] {
  if (value === undefined || value === '*') return undefined;
  if (!TYPE_PATTERN.test(value)) {
    throw new BadRequestException(`${name} must be an event type, optionally ending in * (e.g. im.incident.*)`);
  }
  return value.endsWith('*') ? { prefix: value.slice(0, -1) } : { exact: value };
}

/** Ties a cursor to the query it came from, so it cannot be replayed against another. */
const queryTag = (query: Omit<TimelineQuery, 'limit' | 'after'>) =>
  createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 12);

export function encodeTimelineCursor(query: TimelineQuery, last: TimelinePosition): string {
  const { limit: _limit, after: _after, ...shape } = query;
  return Buffer.from(JSON.stringify([last.eventTime, String(last.position), queryTag(shape)])).toString('base64url');
}

function decodeCursor(cursor: unknown, shape: Omit<TimelineQuery, 'limit' | 'after'>): TimelinePosition {
  const invalid = new BadRequestException('cursor is malformed or belongs to another query: pass next_cursor unchanged with the same filters');
  if (typeof cursor !== 'string') throw invalid;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(value) || value.length !== 3 || !value.every((v) => typeof v === 'string')) throw invalid;
  const [eventTime, position, tag] = value as string[];
  if (tag !== queryTag(shape) || !/^\d+$/.test(position)) throw invalid;
  return { eventTime, position: BigInt(position) };
}

/** Validates a timeline filter from query parameters or a query body into a read-model query. */
export function parseTimelineFilter(raw: Record<string, unknown>, names: FilterNames, fixed: Partial<TimelineQuery> = {}): TimelineQuery {
  const order = raw.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new BadRequestException('order must be asc or desc');
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
    throw new BadRequestException(`${names.from} must not be after ${names.to}`);
  }
  for (const key of Object.keys(shape) as (keyof typeof shape)[]) if (shape[key] === undefined) delete shape[key];
  return {
    ...shape,
    limit: limitOf(raw.limit, names.fromQueryString),
    after: raw.cursor === undefined ? undefined : decodeCursor(raw.cursor, shape),
  };
}
