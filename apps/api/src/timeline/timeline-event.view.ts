import type { RedactedEntry } from '@im/policy';

/** A timeline event as read (interface.md); `created_at` only on the single-event read. */
export interface TimelineEventView {
  id: string;
  incident_id: string;
  event_time: string;
  event_type: string;
  actor: string;
  title: string;
  content: string;
  source: string;
  data: Record<string, unknown>;
  /** Field paths the caller's access level hid as "[REDACTED]"; empty when nothing was. */
  redacted: string[];
  created_at?: string;
}

export const toTimelineEventView = ({ entry, redacted }: RedactedEntry): TimelineEventView => ({
  id: entry.id,
  incident_id: entry.incidentId,
  event_time: entry.eventTime,
  event_type: entry.eventType,
  actor: entry.actor,
  title: entry.title,
  content: entry.content,
  source: entry.source,
  data: entry.data,
  redacted,
});
