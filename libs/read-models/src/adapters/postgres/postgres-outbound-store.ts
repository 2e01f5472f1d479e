import type { Pool } from 'pg';
import { outboundLease } from '../../leases/lease-store.port';
import { type AttemptHistory, channelOfConsumer, type DeliveryAttempt, type MessageOfTarget, type OutboundProgress, type OutboundStore, type ResendRequest } from '../../outbound/outbound-store.port';
import { rowsOf, run, type Statement } from './postgres-sql';
import type { PostgresLeaseStore } from './postgres-lease-store';

const ATTEMPT_COLUMNS = `id, channel, target_id AS "targetId", event_id AS "eventId", position, message_id AS "messageId", attempt,
  attempted_at AS "attemptedAt", status_code AS "statusCode", error, duration_ms AS "durationMs"`;

const MOVE_CHECKPOINT = `INSERT INTO ob_checkpoints (consumer, position) VALUES ($1, $2)
  ON CONFLICT (consumer) DO UPDATE SET position = greatest(ob_checkpoints.position, excluded.position)`;

// The attempt is numbered in the insert itself: one past the event's last attempt recorded (its earlier ones may have been pruned).
// An attempt committed again (after a commit that failed part way) is the same attempt: kept once, never a failed batch.
// One deliverer per channel at a time (its lease), so two inserts never number the same event's attempts at once.
const INSERT_ATTEMPT = `INSERT INTO ob_attempts (id, channel, target_id, event_id, position, message_id, attempt, attempted_at, status_code, error, duration_ms)
  VALUES ($1, $2, $3, $4, $5, $6,
    1 + coalesce((SELECT max(attempt) FROM ob_attempts WHERE channel = $2 AND target_id = $3 AND position = $5), 0),
    $7, $8, $9, $10)
  ON CONFLICT (id) DO NOTHING`;

/**
 * Outbound deliveries in the read store's database: three tables of their own
 * (`ob_*`), which no rebuild touches. A commit is one transaction, fenced by
 * the lease of each channel it commits for (`outbound:<channel>`).
 */
export class PostgresOutboundStore implements OutboundStore {
  constructor(
    private readonly pool: Pool,
    private readonly leases: PostgresLeaseStore,
  ) {}

  async checkpoint(consumer: string): Promise<bigint | undefined> {
    const [row] = await rowsOf<{ position: bigint }>(this.pool, 'SELECT position FROM ob_checkpoints WHERE consumer = $1', [consumer]);
    return row?.position;
  }

  async commit(progress: OutboundProgress[]): Promise<void> {
    const statements = progress.flatMap(({ consumer, position, attempts }): Statement[] => [
      ...attempts.map(({ id, channel, targetId, eventId, position, messageId, attemptedAt, statusCode, error, durationMs }): Statement => [
        INSERT_ATTEMPT,
        [id, channel, targetId, eventId, position, messageId, attemptedAt, statusCode, error, durationMs],
      ]),
      ...(position === undefined ? [] : [[MOVE_CHECKPOINT, [consumer, position]] satisfies Statement]),
    ]);
    if (statements.length === 0) return;
    await this.leases.fenced(progress.map(({ consumer }) => outboundLease(channelOfConsumer(consumer))), async (client) => {
      for (const statement of statements) await run(client, statement);
    });
  }

  attempts(channel: string, targetId: string, limit: number): Promise<DeliveryAttempt[]> {
    return rowsOf<DeliveryAttempt>(this.pool, `SELECT ${ATTEMPT_COLUMNS} FROM ob_attempts WHERE channel = $1 AND target_id = $2 ORDER BY id DESC LIMIT $3`, [channel, targetId, limit]);
  }

  async findAttempt(channel: string, targetId: string, attemptId: string): Promise<DeliveryAttempt | undefined> {
    const [row] = await rowsOf<DeliveryAttempt>(this.pool, `SELECT ${ATTEMPT_COLUMNS} FROM ob_attempts WHERE channel = $1 AND target_id = $2 AND id = $3`, [channel, targetId, attemptId]);
    return row;
  }

  async history({ channel, targetId, position, messageId }: MessageOfTarget): Promise<AttemptHistory | undefined> {
    const [row] = await rowsOf<AttemptHistory>(
      this.pool,
      `SELECT count(*)::integer AS attempts, min(attempted_at) AS "firstAttemptedAt" FROM ob_attempts
       WHERE channel = $1 AND target_id = $2 AND position = $3 AND message_id = $4`,
      [channel, targetId, position, messageId],
    );
    return row.attempts > 0 ? row : undefined;
  }

  async requestResend({ id, channel, targetId, attemptId, requestedAt }: ResendRequest): Promise<void> {
    await run(this.pool, [
      'INSERT INTO ob_resends (id, channel, target_id, attempt_id, requested_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
      [id, channel, targetId, attemptId, requestedAt],
    ]);
  }

  pendingResends(channel: string): Promise<ResendRequest[]> {
    return rowsOf<ResendRequest>(
      this.pool,
      `SELECT id, channel, target_id AS "targetId", attempt_id AS "attemptId", requested_at AS "requestedAt" FROM ob_resends WHERE channel = $1 ORDER BY requested_at, id`,
      [channel],
    );
  }

  async completeResend(id: string): Promise<void> {
    await run(this.pool, ['DELETE FROM ob_resends WHERE id = $1', [id]]);
  }

  pruneAttempts(channel: string, before: string, limit: number): Promise<number> {
    return run(this.pool, ['DELETE FROM ob_attempts WHERE id IN (SELECT id FROM ob_attempts WHERE id < $1 AND channel = $2 ORDER BY id LIMIT $3)', [before, channel, limit]]);
  }
}
