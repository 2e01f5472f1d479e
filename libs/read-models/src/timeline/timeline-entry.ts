import type { CloudEvent, DataClass, Visibility } from '@im/cloudevents';

/** One event of an incident's timeline, as every read path serves it (before policy). */
export interface TimelineEntry {
  id: string;
  incidentId: string;
  /** The CloudEvent `time` in UTC: what timelines sort and filter on. */
  eventTime: string;
  eventType: string;
  actor: string;
  /** Who sent it (the authenticated writer), beside the actor it claims; absent on events stored before senders were recorded. */
  sender?: string;
  title: string;
  content: string;
  source: string;
  /** Event data without the title and the sender. */
  data: Record<string, unknown>;
  /** When the ledger stored the event. */
  createdAt: string;
  correlationKey?: string;
  fingerprint?: string;
  visibility: Visibility;
  dataClass: DataClass[];
  /** The event as written, for JSON exports. */
  event: CloudEvent;
}
