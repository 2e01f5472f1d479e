import type { paths } from './openapi-types';
import { answer, api, file, withToken } from './rest';

/** The response metrics (GET /api/v1/analytics/incidents, docs/api.md "Insights: response metrics"), used by the Insights page alone. */

type Metrics = paths['/api/v1/analytics/incidents']['get']['responses'][200]['content'];
export type MetricsGroup = Metrics['application/json']['groups'][number];
export type MetricsGrouping = 'week' | 'service';
export interface MetricsWindow {
  from: Date;
  to: Date;
}

const query = (window: MetricsWindow, groupBy: MetricsGrouping) => ({ query: { from: window.from.toISOString(), to: window.to.toISOString(), group_by: groupBy } });

/** The document types the answer as JSON or CSV; asked without `Accept: text/csv`, it is JSON. */
export const readMetrics = async (token: string, window: MetricsWindow, groupBy: MetricsGrouping): Promise<MetricsGroup[]> =>
  (answer(await api.GET('/api/v1/analytics/incidents', { params: query(window, groupBy), ...withToken(token) })) as Metrics['application/json']).groups;

/** The same groups as CSV, a file to save. */
export const metricsCsv = async (token: string, window: MetricsWindow, groupBy: MetricsGrouping): Promise<Blob> =>
  file(await api.GET('/api/v1/analytics/incidents', { params: { ...query(window, groupBy), header: { accept: 'text/csv' } }, parseAs: 'blob', ...withToken(token) }));
