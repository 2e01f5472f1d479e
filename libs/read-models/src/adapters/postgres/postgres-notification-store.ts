import type { Pool } from 'pg';
import type { NotificationRecord, NotificationStore } from '../../notifications/notification-store.port';
import { outboundLease } from '../../leases/lease-store.port';
import { rowsOf, run } from './postgres-sql';
import type { PostgresLeaseStore } from './postgres-lease-store';

const COLUMNS = `id, responder, incident_id AS "incidentId", channel, trigger, event_id AS "eventId", position, decision, reason,
  created_at AS "createdAt", sent_at AS "sentAt", due_at AS "dueAt", content`;

const UPSERT = `INSERT INTO nt_notifications (id, responder, incident_id, channel, trigger, event_id, position, decision, reason, created_at, sent_at, due_at, content)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
  ON CONFLICT (id) DO UPDATE SET decision = excluded.decision, reason = excluded.reason, sent_at = excluded.sent_at, due_at = excluded.due_at`;

/** Notification decisions in the read store's database: a table of their own (`nt_notifications`), which no rebuild touches. A save is fenced by the lease `outbound:notification`. */
export class PostgresNotificationStore implements NotificationStore {
  constructor(
    private readonly pool: Pool,
    private readonly leases: PostgresLeaseStore,
  ) {}

  async find(ids: string[]): Promise<NotificationRecord[]> {
    if (ids.length === 0) return [];
    return rowsOf<NotificationRecord>(this.pool, `SELECT ${COLUMNS} FROM nt_notifications WHERE id = ANY($1::text[])`, [ids]);
  }

  async save(record: NotificationRecord): Promise<void> {
    const { id, responder, incidentId, channel, trigger, eventId, position, decision, reason, createdAt, sentAt, dueAt, content } = record;
    const values = [id, responder, incidentId, channel, trigger, eventId, position, decision, reason, createdAt, sentAt, dueAt, JSON.stringify(content)];
    await this.leases.fenced([outboundLease('notification')], (client) => run(client, [UPSERT, values]));
  }

  due(channel: string, now: string, limit: number): Promise<NotificationRecord[]> {
    return rowsOf<NotificationRecord>(
      this.pool,
      `SELECT ${COLUMNS} FROM nt_notifications WHERE channel = $1 AND due_at IS NOT NULL AND due_at <= $2 ORDER BY due_at, id LIMIT $3`,
      [channel, now, limit],
    );
  }

  listFor(responder: string, limit: number): Promise<NotificationRecord[]> {
    return rowsOf<NotificationRecord>(this.pool, `SELECT ${COLUMNS} FROM nt_notifications WHERE responder = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [responder, limit]);
  }
}
