import { type Connection, Schema } from 'mongoose';
import type { NotificationRecord, NotificationStore } from '../../notifications/notification-store.port';
import { fromHex, hex } from './positions';
import { outboundLease } from '../../leases/lease-store.port';
import type { MongoLeaseStore } from './mongodb-lease-store';

type StoredNotification = Omit<NotificationRecord, 'id' | 'position'> & { _id: string; position: string };

const toRecord = ({ _id, position, ...record }: StoredNotification): NotificationRecord => ({ ...record, id: _id, position: fromHex(position) });

/** Notification decisions in MongoDB: a collection of their own (`nt_notifications`), which no rebuild touches. */
export class MongoNotificationStore implements NotificationStore {
  private readonly records;

  constructor(
    connection: Connection,
    private readonly leases: MongoLeaseStore,
  ) {
    const schema = new Schema<StoredNotification>(
      {
        _id: String,
        responder: String,
        incidentId: String,
        channel: String,
        trigger: String,
        eventId: String,
        position: String,
        decision: String,
        reason: { type: String, default: null },
        createdAt: String,
        sentAt: { type: String, default: null },
        dueAt: { type: String, default: null },
        content: Schema.Types.Mixed,
      },
      { collection: 'nt_notifications', versionKey: false },
    );
    schema.index({ responder: 1, createdAt: -1, _id: -1 });
    schema.index({ channel: 1, dueAt: 1 }, { partialFilterExpression: { dueAt: { $type: 'string' } } });
    this.records = connection.model<StoredNotification>('notifications', schema);
  }

  /** The indexes the queries need (MongoReadStore.connect calls it). */
  async syncIndexes(): Promise<void> {
    await this.records.syncIndexes();
  }

  async find(ids: string[]): Promise<NotificationRecord[]> {
    if (ids.length === 0) return [];
    return (await this.records.find({ _id: { $in: ids } }).lean()).map(toRecord);
  }

  async save({ id, position, ...record }: NotificationRecord): Promise<void> {
    this.leases.refuseIfLost([outboundLease('notification')]);
    await this.records.replaceOne({ _id: id }, { ...record, position: hex(position) }, { upsert: true });
  }

  async due(channel: string, now: string, limit: number): Promise<NotificationRecord[]> {
    const rows = await this.records.find({ channel, dueAt: { $type: 'string', $lte: now } }).sort({ dueAt: 1, _id: 1 }).limit(limit).lean();
    return rows.map(toRecord);
  }

  async listFor(responder: string, limit: number): Promise<NotificationRecord[]> {
    return (await this.records.find({ responder }).sort({ createdAt: -1, _id: -1 }).limit(limit).lean()).map(toRecord);
  }
}
