import { InvalidError } from '@im/incidents';

/** `ledger`: the bundle of the verifiable ledger (docs/api.md, "Verifiable ledger"). */
export const TIMELINE_EXPORT_FORMATS = ['json', 'markdown', 'ledger'] as const;
export type TimelineExportFormat = (typeof TIMELINE_EXPORT_FORMATS)[number];

/** GET /api/v1/incidents/:id/timeline/export?format=: JSON unless markdown or the ledger bundle is asked for. */
export function parseTimelineExportFormat(format: unknown): TimelineExportFormat {
  if (format === undefined) return 'json';
  if (!(TIMELINE_EXPORT_FORMATS as readonly unknown[]).includes(format)) throw new InvalidError(`format must be ${TIMELINE_EXPORT_FORMATS.join(' or ')}`);
  return format as TimelineExportFormat;
}
