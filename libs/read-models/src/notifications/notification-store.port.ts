/** Nest injection token of the NotificationStore port. */
export const NOTIFICATION_STORE = Symbol('NOTIFICATION_STORE');

/** What mail and push carry (docs/api.md, "Notifications"): never timeline content. */
export interface NotificationContent {
  incident_id: string;
  title: string;
  severity: string;
  status: string;
  trigger: string;
  url: string;
  /** A page (trigger `paged`): the escalation step and round that paged the responder, for the mail's text. */
  page?: { step: number; round: number };
}

export type NotificationDecisionName = 'SENT' | 'SUPPRESSED' | 'HELD' | 'FAILED';

/** One decision: one responder, channel and triggering ledger event. */
export interface NotificationRecord {
  /** Derived from responder, channel and event: deciding the same event again finds the same record. */
  id: string;
  responder: string;
  incidentId: string;
  channel: string;
  trigger: string;
  eventId: string;
  position: bigint;
  decision: NotificationDecisionName;
  /** Why, for all but SENT. */
  reason: string | null;
  createdAt: string;
  /** Set once sent. */
  sentAt: string | null;
  /** A held decision: when it is sent; kept while that send is retried, cleared once it is sent or given up. */
  dueAt: string | null;
  content: NotificationContent;
}

/**
 * The decisions of the notifications consumer. Kept beside the read models
 * (the same SQLite file, MongoDB or PostgreSQL database) like the outbound deliveries;
 * none of it is rebuilt from the log, so a rebuild never notifies again.
 */
export interface NotificationStore {
  /** The records with these ids, as stored now. */
  find(ids: string[]): Promise<NotificationRecord[]>;
  /** Writes the record whole (the one consumer deciding on its channel is its only writer). */
  save(record: NotificationRecord): Promise<void>;
  /** Records of the channel whose dueAt has come, earliest first. */
  due(channel: string, now: string, limit: number): Promise<NotificationRecord[]>;
  /** The responder's records, newest first (by createdAt, then id). */
  listFor(responder: string, limit: number): Promise<NotificationRecord[]>;
}
