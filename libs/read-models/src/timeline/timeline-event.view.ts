import type { TimelineEntry } from './timeline-entry';

/** A timeline event as read (docs/api.md); `created_at` only on the single-event read. */
export interface TimelineEventView {
  id: string;
  incident_id: string;
  event_time: string;
  event_type: string;
  actor: string;
  /** Who sent it (the authenticated writer), when recorded: it differs from `actor` only for a relay's events. */
  sender?: string;
  title: string;
  content: string;
  source: string;
  data: Record<string, unknown>;
  /** Field paths the caller's access level hid as "[REDACTED]"; empty when nothing was. */
  redacted: string[];
  created_at?: string;
}

/** The read view of an entry as shown to a caller (the policy's RedactedEntry: the entry and what was redacted of it). */
export const toTimelineEventView = ({ entry, redacted }: { entry: TimelineEntry; redacted: string[] }): TimelineEventView => ({
  id: entry.id,
  incident_id: entry.incidentId,
  event_time: entry.eventTime,
  event_type: entry.eventType,
  actor: entry.actor,
  ...(entry.sender === undefined ? {} : { sender: entry.sender }),
  title: entry.title,
  content: entry.content,
  source: entry.source,
  data: entry.data,
  redacted,
});

/**
 * The read view of an entry with nothing redacted, as JSON text: what the
 * timeline read model keeps beside each document, so a page writes it into
 * the answer as it is for every event the caller is shown unredacted.
 */
export const unredactedViewJson = (entry: TimelineEntry): string => JSON.stringify(toTimelineEventView({ entry, redacted: [] }));
