import { InvalidError, isSeverity, isStatus, type Severity, SEVERITIES, type Status, STATUSES } from '@im/incidents';
import type { IncidentListQuery } from '@im/read-models';

/** GET /api/v1/incidents `limit`: the contract's default and bound (docs/api.md, 1–1000), not a tuning knob. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export type RawQuery = Record<string, string | string[] | undefined>;

/** `?status=open,acknowledged` and `?status=open&status=acknowledged` mean the same. */
function commaList(raw: string | string[] | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

function single(raw: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(raw)) throw new InvalidError(`${name} may be given once`);
  return raw;
}

export function encodeCursor(after: { createdAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([after.createdAt, after.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // fall through: any undecodable cursor is the client's mistake
  }
  throw new InvalidError('cursor is malformed: pass the value of a previous Link rel="next"');
}

export function parseLimit(raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > max) {
    throw new InvalidError(`limit must be a whole number from 1 to ${max}`);
  }
  return limit;
}

/** Validates GET /api/v1/incidents query parameters into a read-model query. */
export function parseIncidentListQuery(query: RawQuery): IncidentListQuery {
  const statuses = commaList(query.status);
  const badStatus = statuses?.find((s) => !isStatus(s));
  if (badStatus !== undefined) {
    throw new InvalidError(`status "${badStatus}" is not one of ${STATUSES.join(', ')}`);
  }
  const severities = commaList(query.severity);
  const badSeverity = severities?.find((s) => !isSeverity(s));
  if (badSeverity !== undefined) {
    throw new InvalidError(`severity "${badSeverity}" is not one of ${SEVERITIES.join(', ')}`);
  }
  const cursor = single(query.cursor, 'cursor');
  return {
    statuses: statuses as Status[] | undefined,
    severities: severities as Severity[] | undefined,
    limit: parseLimit(single(query.limit, 'limit'), DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT),
    after: cursor === undefined ? undefined : decodeCursor(cursor),
  };
}

/** The `Link: <…>; rel="next"` value for the page after `last`, keeping the caller's filters. */
export function nextPageLink(path: string, query: IncidentListQuery, last: { createdAt: string; id: string }): string {
  const params = new URLSearchParams();
  if (query.statuses?.length) params.set('status', query.statuses.join(','));
  if (query.severities?.length) params.set('severity', query.severities.join(','));
  params.set('limit', String(query.limit));
  params.set('cursor', encodeCursor(last));
  return `<${path}?${params.toString()}>; rel="next"`;
}
