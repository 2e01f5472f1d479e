import type Database from 'better-sqlite3';
import type { SqliteWrites } from './sqlite-writes';
import type { SqliteLeaseStore } from './sqlite-lease-store';
import { outboundLease } from '../../leases/lease-store.port';
import type { NotificationRecord, NotificationStore } from '../../notifications/notification-store.port';

interface NotificationRow {
  id: string;
  responder: string;
  incident_id: string;
  channel: string;
  trigger: string;
  event_id: string;
  position: number | bigint;
  decision: NotificationRecord['decision'];
  reason: string | null;
  created_at: string;
  sent_at: string | null;
  due_at: string | null;
  content: string;
}

const toRecord = (row: NotificationRow): NotificationRecord => ({
  id: row.id,
  responder: row.responder,
  incidentId: row.incident_id,
  channel: row.channel,
  trigger: row.trigger,
  eventId: row.event_id,
  position: BigInt(row.position),
  decision: row.decision,
  reason: row.reason,
  createdAt: row.created_at,
  sentAt: row.sent_at,
  dueAt: row.due_at,
  content: JSON.parse(row.content) as NotificationRecord['content'],
});

const UPSERT = `INSERT INTO notifications (id, responder, incident_id, channel, trigger, event_id, position, decision, reason, created_at, sent_at, due_at, content)
  VALUES (@id, @responder, @incidentId, @channel, @trigger, @eventId, @position, @decision, @reason, @createdAt, @sentAt, @dueAt, @content)
  ON CONFLICT (id) DO UPDATE SET decision = excluded.decision, reason = excluded.reason, sent_at = excluded.sent_at, due_at = excluded.due_at`;

/** Notification decisions in the read models' SQLite file: a table of their own, which no rebuild touches. A save is fenced by the lease `outbound:notification`. */
export class SqliteNotificationStore implements NotificationStore {
  private readonly selectDue;
  private readonly selectFor;

  constructor(
    private readonly db: Database.Database,
    private readonly writes: SqliteWrites,
    private readonly leases: SqliteLeaseStore,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS notifications (
        id TEXT PRIMARY KEY, responder TEXT NOT NULL, incident_id TEXT NOT NULL, channel TEXT NOT NULL, trigger TEXT NOT NULL,
        event_id TEXT NOT NULL, position INTEGER NOT NULL, decision TEXT NOT NULL, reason TEXT, created_at TEXT NOT NULL,
        sent_at TEXT, due_at TEXT, content TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS notifications_by_responder ON notifications (responder, created_at, id);
      CREATE INDEX IF NOT EXISTS notifications_due ON notifications (channel, due_at) WHERE due_at IS NOT NULL;`);
    this.selectDue = db.prepare(`SELECT * FROM notifications WHERE channel = ? AND due_at IS NOT NULL AND due_at <= ? ORDER BY due_at, id LIMIT ?`).safeIntegers();
    this.selectFor = db.prepare(`SELECT * FROM notifications WHERE responder = ? ORDER BY created_at DESC, id DESC LIMIT ?`).safeIntegers();
  }

  async find(ids: string[]): Promise<NotificationRecord[]> {
    if (ids.length === 0) return [];
    const rows = this.db.prepare(`SELECT * FROM notifications WHERE id IN (${ids.map(() => '?').join(',')})`).safeIntegers().all(...ids) as NotificationRow[];
    return rows.map(toRecord);
  }

  async save(record: NotificationRecord): Promise<void> {
    await this.writes.transaction([[UPSERT, { ...record, content: JSON.stringify(record.content) }]], this.leases.guard([outboundLease('notification')]));
  }

  async due(channel: string, now: string, limit: number): Promise<NotificationRecord[]> {
    return (this.selectDue.all(channel, now, limit) as NotificationRow[]).map(toRecord);
  }

  async listFor(responder: string, limit: number): Promise<NotificationRecord[]> {
    return (this.selectFor.all(responder, limit) as NotificationRow[]).map(toRecord);
  }
}
