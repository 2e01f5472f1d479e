import type Database from 'better-sqlite3';
import type { SqliteWrites, WriteStep } from './sqlite-writes';
import type { SqliteLeaseStore } from './sqlite-lease-store';
import { outboundLease } from '../../leases/lease-store.port';
import { type AttemptHistory, channelOfConsumer, type DeliveryAttempt, type MessageOfTarget, type OutboundProgress, type OutboundStore, type ResendRequest } from '../../outbound/outbound-store.port';

interface AttemptRow {
  id: string;
  channel: string;
  target_id: string;
  event_id: string;
  position: number | bigint;
  message_id: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

const toAttempt = (row: AttemptRow): DeliveryAttempt => ({
  id: row.id,
  channel: row.channel,
  targetId: row.target_id,
  eventId: row.event_id,
  position: BigInt(row.position),
  messageId: row.message_id,
  attempt: row.attempt,
  attemptedAt: row.attempted_at,
  statusCode: row.status_code,
  error: row.error,
  durationMs: row.duration_ms,
});

const MOVE_CHECKPOINT = `INSERT INTO outbound_checkpoints (consumer, position) VALUES (?, ?)
  ON CONFLICT (consumer) DO UPDATE SET position = max(position, excluded.position)`;
// The attempt is numbered in the insert itself: one past the event's last attempt recorded (its earlier ones may have been pruned).
// An attempt committed again (after a commit that failed part way) is the same attempt: kept once, never a failed batch.
const INSERT_ATTEMPT = `INSERT INTO outbound_attempts (id, channel, target_id, event_id, position, message_id, attempt, attempted_at, status_code, error, duration_ms)
  VALUES (@id, @channel, @targetId, @eventId, @position, @messageId,
    1 + coalesce((SELECT max(attempt) FROM outbound_attempts WHERE channel = @channel AND target_id = @targetId AND position = @position), 0),
    @attemptedAt, @statusCode, @error, @durationMs)
  ON CONFLICT (id) DO NOTHING`;
const INSERT_RESEND = `INSERT OR IGNORE INTO outbound_resends (id, channel, target_id, attempt_id, requested_at) VALUES (@id, @channel, @targetId, @attemptId, @requestedAt)`;
const DELETE_RESEND = `DELETE FROM outbound_resends WHERE id = ?`;
const DELETE_OLDEST = `DELETE FROM outbound_attempts WHERE id IN (SELECT id FROM outbound_attempts WHERE id < ? AND channel = ? ORDER BY id LIMIT ?)`;

/** Outbound deliveries in the read models' SQLite file: three tables of their own, which no rebuild touches. A commit is fenced by its channels' leases. */
export class SqliteOutboundStore implements OutboundStore {
  private readonly selectCheckpoint;
  private readonly selectAttempts;
  private readonly selectAttempt;
  private readonly selectHistory;
  private readonly selectResends;

  constructor(
    db: Database.Database,
    private readonly writes: SqliteWrites,
    private readonly leases: SqliteLeaseStore,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS outbound_checkpoints (consumer TEXT PRIMARY KEY, position INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS outbound_attempts (
        id TEXT PRIMARY KEY, channel TEXT NOT NULL, target_id TEXT NOT NULL, event_id TEXT NOT NULL, position INTEGER NOT NULL,
        message_id TEXT NOT NULL, attempt INTEGER NOT NULL, attempted_at TEXT NOT NULL, status_code INTEGER, error TEXT, duration_ms INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS outbound_attempts_by_target ON outbound_attempts (channel, target_id, id);
      -- An event's attempts are found by its ledger position: a new attempt lands at the index's right edge, where an
      -- index on the (random) event id put each on a page of its own, written again at every commit.
      CREATE INDEX IF NOT EXISTS outbound_attempts_by_position ON outbound_attempts (channel, target_id, position);
      DROP INDEX IF EXISTS outbound_attempts_by_event;
      DROP INDEX IF EXISTS outbound_attempts_by_message;
      CREATE TABLE IF NOT EXISTS outbound_resends (id TEXT PRIMARY KEY, channel TEXT NOT NULL, target_id TEXT NOT NULL, attempt_id TEXT NOT NULL, requested_at TEXT NOT NULL);`);
    this.selectCheckpoint = db.prepare(`SELECT position FROM outbound_checkpoints WHERE consumer = ?`).pluck().safeIntegers();
    this.selectAttempts = db.prepare(`SELECT * FROM outbound_attempts WHERE channel = ? AND target_id = ? ORDER BY id DESC LIMIT ?`);
    this.selectAttempt = db.prepare(`SELECT * FROM outbound_attempts WHERE channel = ? AND target_id = ? AND id = ?`);
    this.selectHistory = db.prepare(
      `SELECT count(*) AS attempts, min(attempted_at) AS firstAttemptedAt FROM outbound_attempts
       WHERE channel = @channel AND target_id = @targetId AND position = @position AND message_id = @messageId`,
    );
    this.selectResends = db.prepare(`SELECT * FROM outbound_resends WHERE channel = ? ORDER BY requested_at, id`);
  }

  async checkpoint(consumer: string): Promise<bigint | undefined> {
    return this.selectCheckpoint.get(consumer) as bigint | undefined;
  }

  async commit(progress: OutboundProgress[]): Promise<void> {
    await this.writes.transaction(
      progress.flatMap(({ consumer, position, attempts }): WriteStep[] => [
        ...attempts.map((attempt): WriteStep => [INSERT_ATTEMPT, attempt]),
        ...(position === undefined ? [] : [[MOVE_CHECKPOINT, [consumer, position]] satisfies WriteStep]),
      ]),
      this.leases.guard(progress.map(({ consumer }) => outboundLease(channelOfConsumer(consumer)))),
    );
  }

  async attempts(channel: string, targetId: string, limit: number): Promise<DeliveryAttempt[]> {
    return (this.selectAttempts.all(channel, targetId, limit) as AttemptRow[]).map(toAttempt);
  }

  async findAttempt(channel: string, targetId: string, attemptId: string): Promise<DeliveryAttempt | undefined> {
    const row = this.selectAttempt.get(channel, targetId, attemptId) as AttemptRow | undefined;
    return row && toAttempt(row);
  }

  async history({ channel, targetId, position, messageId }: MessageOfTarget): Promise<AttemptHistory | undefined> {
    const row = this.selectHistory.get({ channel, targetId, position, messageId }) as AttemptHistory;
    return row.attempts > 0 ? row : undefined;
  }

  async requestResend(request: ResendRequest): Promise<void> {
    await this.writes.transaction([[INSERT_RESEND, request]]);
  }

  async pendingResends(channel: string): Promise<ResendRequest[]> {
    return (this.selectResends.all(channel) as { id: string; channel: string; target_id: string; attempt_id: string; requested_at: string }[]).map((row) => ({
      id: row.id,
      channel: row.channel,
      targetId: row.target_id,
      attemptId: row.attempt_id,
      requestedAt: row.requested_at,
    }));
  }

  async completeResend(id: string): Promise<void> {
    await this.writes.transaction([[DELETE_RESEND, [id]]]);
  }

  async pruneAttempts(channel: string, before: string, limit: number): Promise<number> {
    const [deleted] = await this.writes.transaction([[DELETE_OLDEST, [before, channel, limit]]]);
    return deleted;
  }
}
