import type { MetricsGroup } from '../../../../libs/incidents/src/insights/incident-metrics';
import { fetchWithToken } from './rest';

/**
 * The response metrics (GET /api/v1/analytics/incidents, docs/api.md
 * "Insights"), used by the Insights page alone. The route is not in the
 * generated OpenAPI types yet: a small typed fetch, the shapes the domain's own types.
 */

export type { MetricsGroup };
export type MetricsGrouping = 'week' | 'service';
export interface MetricsWindow {
  from: Date;
  to: Date;
}

const metricsPath = (window: MetricsWindow, groupBy: MetricsGrouping) =>
  `/api/v1/analytics/incidents?${new URLSearchParams({ from: window.from.toISOString(), to: window.to.toISOString(), group_by: groupBy })}`;

export async function readMetrics(token: string, window: MetricsWindow, groupBy: MetricsGrouping): Promise<MetricsGroup[]> {
  const body = (await (await fetchWithToken(token, metricsPath(window, groupBy), 'application/json')).json()) as { groups: MetricsGroup[] };
  return body.groups;
}

/** The same groups as CSV, a file to save. */
export const metricsCsv = async (token: string, window: MetricsWindow, groupBy: MetricsGrouping): Promise<Blob> => (await fetchWithToken(token, metricsPath(window, groupBy), 'text/csv')).blob();
