import type { MetricsGroup } from '@im/incidents';
import type { MetricsWindow } from './incident-metrics.query';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** The header row, exactly as the contract has it (docs/api.md, "Insights: response metrics"). */
export const METRICS_CSV_HEADER = 'key,incidents,acknowledged,resolved,escalated,canceled,duplicates,alerts,tta_p50,tta_p90,tta_mean,ttr_p50,ttr_p90,ttr_mean';

/** RFC 4180: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled; null is an empty field. */
function field(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The groups as CSV, one row each after the header, every line ended by CRLF. */
export function metricsCsv(groups: MetricsGroup[]): string {
  const rows = groups.map((g) =>
    [
      g.key,
      g.incidents,
      g.acknowledged,
      g.resolved,
      g.escalated,
      g.canceled,
      g.duplicates,
      g.alerts,
      g.time_to_acknowledge.p50,
      g.time_to_acknowledge.p90,
      g.time_to_acknowledge.mean,
      g.time_to_resolve.p50,
      g.time_to_resolve.p90,
      g.time_to_resolve.mean,
    ]
      .map(field)
      .join(','),
  );
  return [METRICS_CSV_HEADER, ...rows].map((line) => `${line}\r\n`).join('');
}

/** `attachment; filename="incident-metrics-20260101T000000Z-20260201T000000Z.csv"`: the window in the name, without characters file systems refuse. */
export function metricsCsvDisposition(window: MetricsWindow): string {
  const compact = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `attachment; filename="incident-metrics-${compact(window.from)}-${compact(window.to)}.csv"`;
}
