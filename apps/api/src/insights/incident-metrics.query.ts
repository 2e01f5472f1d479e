import { InvalidError, METRICS_GROUPINGS, type MetricsGrouping } from '@im/incidents';
import { checkWindow, queryInstant } from '../http/time-window.query';

/** The longest window the metrics cover: a leap year (the contract's bound). */
export const MAX_METRICS_WINDOW_DAYS = 366;

/** The declarations counted: recorded in [from, to), both UTC ISO strings. */
export interface MetricsWindow {
  from: string;
  to: string;
}

export interface MetricsRequest extends MetricsWindow {
  groupBy: MetricsGrouping;
}

/** JSON, or CSV when the client asks for text/csv (docs/api.md, "Insights: response metrics"). */
export type MetricsFormat = 'json' | 'csv';

/** The window between two instants (epoch ms), checked alike for REST and GraphQL. */
export function metricsWindow(from: number, to: number): MetricsWindow {
  checkWindow(from, to, MAX_METRICS_WINDOW_DAYS);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/** GET /api/v1/analytics/incidents?from=&to=&group_by=: from and to required, group_by none by default. */
export function parseMetricsQuery(raw: Record<string, unknown>): MetricsRequest {
  const window = metricsWindow(queryInstant(raw, 'from'), queryInstant(raw, 'to'));
  const groupBy = raw.group_by ?? 'none';
  if (!(METRICS_GROUPINGS as readonly unknown[]).includes(groupBy)) throw new InvalidError(`group_by must be ${METRICS_GROUPINGS.join(' or ')}`);
  return { ...window, groupBy: groupBy as MetricsGrouping };
}

/** How much a media range matches a type, and the q it gives it: the most specific range that matches decides (RFC 9110 §12.5.1). */
function preference(ranges: { type: string; q: number }[], mediaType: string): [q: number, specificity: number] {
  const [kind] = mediaType.split('/');
  const specificity = (range: string) => (range === mediaType ? 2 : range === `${kind}/*` ? 1 : range === '*/*' ? 0 : -1);
  const best = ranges.filter((r) => specificity(r.type) >= 0).sort((a, b) => specificity(b.type) - specificity(a.type))[0];
  return best ? [best.q, specificity(best.type)] : [0, -1];
}

/**
 * CSV when the Accept header prefers text/csv to application/json: a higher
 * q, or the same q from a more specific range (`text/csv, *\/*`); JSON
 * otherwise, also when Accept names neither.
 */
export function parseMetricsFormat(accept: string | undefined): MetricsFormat {
  if (!accept) return 'json';
  const ranges = accept.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(value) ? value : 1 };
  });
  const [csvQ, csvSpecificity] = preference(ranges, 'text/csv');
  const [jsonQ, jsonSpecificity] = preference(ranges, 'application/json');
  return csvQ > 0 && (csvQ > jsonQ || (csvQ === jsonQ && csvSpecificity > jsonSpecificity)) ? 'csv' : 'json';
}
