import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError, type MetricsGrouping as Grouping } from '@im/incidents';
import { metricsWindow, type MetricsRequest } from '../insights/incident-metrics.query';
import { MetricsGrouping } from './insights.types';

const GROUPINGS: Record<MetricsGrouping, Grouping> = { SERVICE: 'service', SEVERITY: 'severity', WEEK: 'week', NONE: 'none' };

/**
 * The DateTime scalar makes any text a Date, and any literal that is not a string null: one it could not read, null,
 * or past what the one timestamp parser takes (years 0000-9999), is invalid.
 */
function instant(value: Date | null, name: string): number {
  const utc = value instanceof Date && !Number.isNaN(value.getTime()) ? parseTimestamp(value.toISOString()) : undefined;
  if (utc === undefined) throw new InvalidError(`${name} must be ${TIMESTAMP_RULE}`);
  return Date.parse(utc);
}

/** incidentMetrics(from:, to:, groupBy: MetricsGrouping = NONE): the checks of REST's window; an explicit null groupBy means NONE. */
export function parseIncidentMetricsArgs(from: Date | null, to: Date | null, groupBy: MetricsGrouping | null): MetricsRequest {
  return { ...metricsWindow(instant(from, 'from'), instant(to, 'to')), groupBy: GROUPINGS[groupBy ?? MetricsGrouping.NONE] };
}
