import { type Connection, Schema } from 'mongoose';
import { type AttemptHistory, channelOfConsumer, type DeliveryAttempt, type MessageOfTarget, type OutboundProgress, type OutboundStore, type ResendRequest } from '../../outbound/outbound-store.port';
import { outboundLease } from '../../leases/lease-store.port';
import type { MongoLeaseStore } from './mongodb-lease-store';
import { fromHex, hex } from './positions';

type StoredAttempt = Omit<DeliveryAttempt, 'id' | 'position'> & { _id: string; position: string };
type StoredResend = Omit<ResendRequest, 'id'> & { _id: string };

const toAttempt = ({ _id, position, ...attempt }: StoredAttempt): DeliveryAttempt => ({ ...attempt, id: _id, position: fromHex(position) });

/**
 * Outbound deliveries in MongoDB: checkpoints, attempts and re-sends in
 * collections of their own (`ob_*`), which no rebuild touches. A commit is
 * not one transaction here: attempts are written before the checkpoint that
 * passes them, so a crash in between delivers again (at least once).
 */
export class MongoOutboundStore implements OutboundStore {
  private readonly checkpoints;
  private readonly attemptLog;
  /** Per event and target, how many attempts were made (numbers the next one atomically) and the id of the last, by which it is pruned. */
  private readonly counters;
  private readonly resends;

  constructor(
    connection: Connection,
    private readonly leases: MongoLeaseStore,
  ) {
    this.checkpoints = connection.model<{ _id: string; position: string }>(
      'outbound_checkpoints',
      new Schema<{ _id: string; position: string }>({ _id: String, position: String }, { collection: 'ob_checkpoints', versionKey: false }),
    );
    const attemptSchema = new Schema<StoredAttempt>(
      {
        _id: String,
        channel: String,
        targetId: String,
        eventId: String,
        position: String,
        messageId: String,
        attempt: Number,
        attemptedAt: String,
        statusCode: { type: Number, default: null },
        error: { type: String, default: null },
        durationMs: Number,
      },
      { collection: 'ob_attempts', versionKey: false },
    );
    attemptSchema.index({ channel: 1, targetId: 1, _id: -1 });
    attemptSchema.index({ channel: 1, targetId: 1, messageId: 1 });
    this.attemptLog = connection.model<StoredAttempt>('outbound_attempts', attemptSchema);
    const counterSchema = new Schema<{ _id: string; n: number; last: string }>({ _id: String, n: Number, last: String }, { collection: 'ob_attempt_counters', versionKey: false });
    counterSchema.index({ last: 1 });
    this.counters = connection.model<{ _id: string; n: number; last: string }>('outbound_attempt_counters', counterSchema);
    this.resends = connection.model<StoredResend>(
      'outbound_resends',
      new Schema<StoredResend>({ _id: String, channel: String, targetId: String, attemptId: String, requestedAt: String }, { collection: 'ob_resends', versionKey: false }),
    );
  }

  /** The indexes the queries need (MongoReadStore.connect calls it). */
  async syncIndexes(): Promise<void> {
    await this.attemptLog.syncIndexes();
    await this.counters.syncIndexes();
  }

  async checkpoint(consumer: string): Promise<bigint | undefined> {
    const row = await this.checkpoints.findById(consumer).lean();
    return row ? fromHex(row.position) : undefined;
  }

  async commit(progress: OutboundProgress[]): Promise<void> {
    this.leases.refuseIfLost(progress.map(({ consumer }) => outboundLease(channelOfConsumer(consumer))));
    const attempts: StoredAttempt[] = [];
    for (const { attempts: made } of progress) {
      for (const { id, position, ...attempt } of made) {
        const counter = await this.counters.findOneAndUpdate(
          { _id: `${attempt.channel}\n${attempt.targetId}\n${hex(position)}` },
          { $inc: { n: 1 }, $max: { last: id } },
          { upsert: true, new: true },
        );
        attempts.push({ ...attempt, _id: id, position: hex(position), attempt: counter!.n });
      }
    }
    // Ids are unique: an attempt written again after a failed commit replaces itself.
    if (attempts.length) await this.attemptLog.bulkWrite(attempts.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })));
    const moves = progress.filter((p) => p.position !== undefined);
    if (moves.length) {
      await this.checkpoints.bulkWrite(
        moves.map(({ consumer, position }) => ({ updateOne: { filter: { _id: consumer }, update: { $max: { position: hex(position!) } }, upsert: true } })),
      );
    }
  }

  async attempts(channel: string, targetId: string, limit: number): Promise<DeliveryAttempt[]> {
    const rows = await this.attemptLog.find({ channel, targetId }).sort({ _id: -1 }).limit(limit).lean();
    return rows.map(toAttempt);
  }

  async findAttempt(channel: string, targetId: string, attemptId: string): Promise<DeliveryAttempt | undefined> {
    const row = await this.attemptLog.findOne({ _id: attemptId, channel, targetId }).lean();
    return row ? toAttempt(row) : undefined;
  }

  async history({ channel, targetId, position, messageId }: MessageOfTarget): Promise<AttemptHistory | undefined> {
    const [row] = await this.attemptLog.aggregate<AttemptHistory>([
      { $match: { channel, targetId, messageId, position: hex(position) } },
      { $group: { _id: null, attempts: { $sum: 1 }, firstAttemptedAt: { $min: '$attemptedAt' } } },
      { $project: { _id: 0, attempts: 1, firstAttemptedAt: 1 } },
    ]);
    return row;
  }

  async requestResend({ id, ...request }: ResendRequest): Promise<void> {
    await this.resends.updateOne({ _id: id }, { $setOnInsert: request }, { upsert: true });
  }

  async pendingResends(channel: string): Promise<ResendRequest[]> {
    const rows = await this.resends.find({ channel }).sort({ requestedAt: 1, _id: 1 }).lean();
    return rows.map(({ _id, ...request }) => ({ ...request, id: _id }));
  }

  async completeResend(id: string): Promise<void> {
    await this.resends.deleteOne({ _id: id });
  }

  /** A counter goes once every attempt it numbered is older than `before`: no attempt of its event is left to retry. */
  async pruneAttempts(channel: string, before: string, limit: number): Promise<number> {
    const oldest = await this.attemptLog.find({ channel, _id: { $lt: before } }).sort({ _id: 1 }).limit(limit).select({ _id: 1 }).lean();
    if (oldest.length === 0) return 0;
    const { deletedCount } = await this.attemptLog.deleteMany({ _id: { $in: oldest.map(({ _id }) => _id) } });
    await this.counters.deleteMany({ _id: { $regex: `^${channel}\n` }, last: { $lt: before } });
    return deletedCount;
  }
}
