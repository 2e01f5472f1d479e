import type { Pool, PoolClient, QueryResult } from 'pg';
import { EventEmitter } from 'node:events';
import type { CloudEvent } from '@im/cloudevents';
import type { ChainHeads, LedgerRecord } from '@im/ledger-proof';
import { applyMigrations, openPostgresPool, pendingMigrations, postgresFault, schemaStatus, type SchemaStatus } from '@im/postgres-runtime';
import { malformedAppend, revisionMatches } from '../../append-checks';
import {
  type AppendOptions,
  type AppendResult,
  DuplicateEventError,
  type EventStore,
  type ExpectedRevision,
  type LogHandler,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
  WrongExpectedRevisionError,
} from '../../event-store.port';
import { followLog, nextAppendOrPoll } from '../../follow-log';
import { storageFaultOf } from '../../storage-fault';
import { chainLedger, headsAfter } from '../../ledger-chaining';
import { TurnBatch } from '../../turn-batch';
import { LogListener } from './log-listener';
import { EVENT_STORE_COMPONENT, EVENT_STORE_MIGRATIONS } from './migrations';

/** Every append notifies this channel at its commit, with the position of its last event. */
const APPEND_CHANNEL = 'im_event_log';
/** How often a follower reads the log when no notification came: the safety net for one lost, or the listener reconnecting. */
const POLL_INTERVAL_MS = 1000;

/**
 * Opens the append's transaction and takes the log head, the lock that orders
 * every append (PostgresEventStore, "Commit order"). An append holds it for a
 * few round trips and its commit: longer is a stuck writer, which fails as busy
 * (55P03, lock_timeout) rather than stall every other; and a writer that stops
 * mid-transaction (a frozen process) loses its session rather than hold the
 * lock (idle_in_transaction_session_timeout).
 */
const BEGIN_APPEND = `
  BEGIN;
  SET LOCAL lock_timeout = '10s';
  SET LOCAL idle_in_transaction_session_timeout = '10s';
  SELECT position, clock_timestamp() AS now FROM event_log_head FOR UPDATE`;

/** Each named stream's last revision and ledger record (null revision: no stream). */
const SELECT_TIPS = `
  SELECT wanted.stream_id, last.revision, last.ledger
  FROM unnest($1::text[]) AS wanted (stream_id)
  LEFT JOIN LATERAL (
    SELECT revision, ledger FROM events WHERE events.stream_id = wanted.stream_id ORDER BY revision DESC LIMIT 1
  ) AS last ON true`;

const EVENT_COLUMNS = 'e.position, e.stream_id, e.revision, e.recorded_at, e.body';

/** The keys already taken, each with the event that took it. */
const SELECT_TAKEN = `
  SELECT k.key, ${EVENT_COLUMNS} FROM event_dedup_keys AS k JOIN events AS e USING (position) WHERE k.key = ANY($1::text[])`;

/** The events, their keys and the new head in one statement; the notification goes out when the transaction commits. */
const WRITE_APPEND = `
  WITH written AS (
    INSERT INTO events (position, stream_id, revision, event_id, type, recorded_at, body, ledger)
    SELECT position, stream_id, revision, event_id, type, $6::timestamptz, body, ledger
    FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $7::json[], $8::json[])
      AS e (position, stream_id, revision, event_id, type, body, ledger)
  ), keyed AS (
    INSERT INTO event_dedup_keys (key, position) SELECT * FROM unnest($9::text[], $10::bigint[])
  )
  UPDATE event_log_head SET position = $11 RETURNING pg_notify('${APPEND_CHANNEL}', position::text)`;

interface EventRow {
  position: bigint;
  stream_id: string;
  revision: bigint;
  recorded_at: Date;
  body: CloudEvent;
  /** Absent where a query does not read it. */
  ledger?: LedgerRecord;
}

interface TipRow {
  stream_id: string;
  revision: bigint | null;
  ledger: LedgerRecord | null;
}

/** An appendMulti waiting for its transaction. */
interface PendingAppend {
  parts: StreamAppend[];
  resolve: (results: AppendResult[]) => void;
  reject: (error: unknown) => void;
}

/** What one append of a batch came to: stored, or refused (having written nothing). */
type BatchOutcome = { results: AppendResult[] } | { refused: Error };

/** A batch's events at most, so one statement stays a reasonable size; an append with more goes alone. */
const MAX_BATCH_EVENTS = 5000;

/** Why an append's parts may not be written where the log stands (its first refused part answers), if they may not. */
function refusalOf(parts: (StreamAppend & { dedupKeys: string[] })[], tipOf: Map<string, TipRow>, takenBy: Map<string, RecordedEvent>): Error | undefined {
  for (const { streamId, expected, dedupKeys } of parts) {
    // A taken key is the answer even when the stream moved on too: the re-sent event is a duplicate, not a conflict.
    const key = dedupKeys.find((k) => takenBy.has(k));
    if (key !== undefined) return new DuplicateEventError(key, takenBy.get(key)!);
    const actual = tipOf.get(streamId)?.revision ?? 'no_stream';
    if (!revisionMatches(expected, actual)) return new WrongExpectedRevisionError(streamId, expected, actual);
  }
  return undefined;
}

export interface PostgresEventStoreOptions {
  /** How often a follower reads the log when no notification came (1 s). */
  pollIntervalMs?: number;
  /** Connections at most, the listener's included (pg's default, 10; at least 2). */
  max?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

/**
 * Event store in PostgreSQL (schema: migrations.ts). Any number of processes
 * may append to one database and follow it.
 *
 * Commit order. A position is given out under the lock of the one row of
 * `event_log_head`, which every append takes first and keeps until its
 * commit: appends are serialized across all processes, so positions are
 * gap-free and strictly increasing in commit order (PostgreSQL makes a commit
 * visible before it releases the commit's locks), and a reader that has seen
 * position p has seen everything below it. A sequence would let an append
 * that took a smaller position commit after a reader passed it. The cost: one
 * append at a time per database, each holding the lock for its reads of the
 * streams' tips and the keys, its write and its commit's WAL flush
 * (synchronous_commit stays on), so appends top out at about one per commit
 * (about 2 ms each on a local server, concurrent or not). So a process
 * runs one append transaction at a time, and the appends that arrive
 * meanwhile share its next one (group commit, as the SQLite store does): one
 * lock, one write and one commit for all of them, each still checked and
 * answered on its own. Expected revisions and dedup keys are checked under
 * the same lock, so a refusal is never a race.
 *
 * Followers catch up by position (followLog), then wait for the notification
 * each append sends at its commit (LISTEN, one connection per store, shared by
 * its subscriptions), with a poll as the safety net.
 */
export class PostgresEventStore implements EventStore {
  /** Opens a pool on `url` and applies the event store's pending migrations (none: nothing is written, so a read-only server opens). */
  static async open(url: string, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    // The listener holds a connection for as long as anyone follows: with one alone, nothing else could be read or appended.
    if (options.max !== undefined && options.max < 2) throw new Error('PostgresEventStore needs at least 2 connections');
    const pool = openPostgresPool(url, { max: options.max, applicationName: options.applicationName ?? 'im-event-store' });
    try {
      if ((await pendingMigrations(pool, EVENT_STORE_COMPONENT, EVENT_STORE_MIGRATIONS)).length > 0) {
        await applyMigrations(pool, EVENT_STORE_COMPONENT, EVENT_STORE_MIGRATIONS);
      }
    } catch (error) {
      await pool.end();
      throw postgresFault(error);
    }
    return new PostgresEventStore(pool, options.pollIntervalMs ?? POLL_INTERVAL_MS);
  }

  /** Wakes the followers waiting at the head. */
  private readonly appended = new EventEmitter();
  /** The highest position this process knows is committed (its own appends, notifications). */
  private knownHead = 0n;
  private listener: LogListener | undefined;
  /** Each subscription, with whom it tells of its errors (the listener's too: its connection serves them all). */
  private readonly subscriptions = new Map<Subscription, ((error: unknown) => void) | undefined>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Appends waiting for the next transaction, in arrival order. */
  private pending: PendingAppend[] = [];
  /** A transaction of appends is under way (flush). */
  private flushing = false;
  /** The dedup lookups of one turn of the event loop, answered by one query (the write path asks one or two per request). */
  private readonly keyReads = new TurnBatch<string, RecordedEvent | undefined>(async (keys) =>
    new Map((await this.query<EventRow & { key: string }>(SELECT_TAKEN, [keys])).map((row) => [row.key, toRecorded(row)])),
  );
  /** The pool's connections this store has had: one failing may only have been ended while it sat in the pool. */
  private readonly connections = new WeakSet<PoolClient>();
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    private readonly pollIntervalMs: number,
  ) {
    this.appended.setMaxListeners(0);
  }

  append(streamId: string, events: CloudEvent[], expected: ExpectedRevision, options: AppendOptions = {}): Promise<AppendResult> {
    return this.appendMulti([{ streamId, events, expected, ...options }]).then(([result]) => result);
  }

  /**
   * Every part in one transaction: checked in order under the head's lock (the
   * first refused answers for all), then written. Appends that arrive while
   * this process's previous transaction is under way share the next one (group
   * commit, PostgresEventStore "Commit order").
   */
  async appendMulti(appends: StreamAppend[]): Promise<AppendResult[]> {
    const refused = this.closedError() ?? malformedAppend(appends);
    if (refused) throw refused;
    const appending = new Promise<AppendResult[]>((resolve, reject) => this.pending.push({ parts: appends, resolve, reject }));
    this.inFlight.add(appending);
    if (!this.flushing) void this.flush();
    try {
      return await appending;
    } finally {
      this.inFlight.delete(appending);
    }
  }

  /** Writes the queued appends, a batch per transaction, one transaction at a time, until none is left. */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.nextBatch();
        let outcomes: BatchOutcome[];
        try {
          outcomes = await this.withConnection((client) => this.appendIn(client, batch), 'COMMIT');
        } catch (error) {
          // Not committed, or not known to be: no append of the batch may be reported as stored.
          batch.forEach((append) => append.reject(error));
          continue;
        }
        let last = 0n;
        for (const outcome of outcomes) if ('results' in outcome) for (const { position } of outcome.results) if (position > last) last = position;
        this.heard(last);
        outcomes.forEach((outcome, i) => ('results' in outcome ? batch[i].resolve(outcome.results) : batch[i].reject(outcome.refused)));
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The queued appends in arrival order, up to MAX_BATCH_EVENTS events (the first one always). */
  private nextBatch(): PendingAppend[] {
    let events = 0;
    let taken = 0;
    while (taken < this.pending.length) {
      events += this.pending[taken].parts.reduce((n, part) => n + part.events.length, 0);
      if (taken > 0 && events > MAX_BATCH_EVENTS) break;
      taken++;
    }
    return this.pending.splice(0, taken);
  }

  /**
   * One transaction for the batch: the streams' tips and the keys read once
   * under the head's lock, each append checked in turn against them as the
   * batch's earlier appends leave them (a refused one writes nothing and is
   * answered alone), then everything accepted written in one statement.
   */
  private async appendIn(client: PoolClient, batch: PendingAppend[]): Promise<BatchOutcome[]> {
    const began = (await client.query(BEGIN_APPEND)) as unknown as QueryResult[];
    const { position: head, now } = began[began.length - 1].rows[0] as { position: bigint; now: Date };
    const appends = batch.map(({ parts }) => parts.map((part) => ({ ...part, dedupKeys: [...new Set(part.dedupKeys ?? [])] })));
    const streams = [...new Set(appends.flatMap((parts) => parts.map((part) => part.streamId)))];
    const keys = [...new Set(appends.flatMap((parts) => parts.flatMap((part) => part.dedupKeys)))];
    const tips = (await client.query<TipRow>(SELECT_TIPS, [streams])).rows;
    const taken = keys.length === 0 ? [] : (await client.query<EventRow & { key: string }>(SELECT_TAKEN, [keys])).rows;
    const tipOf = new Map(tips.map((tip) => [tip.stream_id, tip]));
    const takenBy = new Map(taken.map((row) => [row.key, toRecorded(row)]));

    const recordedAt = now.toISOString();
    const rows = { position: [] as bigint[], streamId: [] as string[], revision: [] as bigint[], eventId: [] as string[], type: [] as string[], body: [] as string[], ledger: [] as string[] };
    const keyRows = { key: [] as string[], position: [] as bigint[] };
    let position = head;
    const outcomes = appends.map((parts): BatchOutcome => {
      const refused = refusalOf(parts, tipOf, takenBy);
      if (refused) return { refused };
      const results = parts.map(({ streamId, events, dedupKeys }): AppendResult => {
        const tip = tipOf.get(streamId);
        const ledger = chainLedger(headsAfter(tip?.ledger ?? undefined), events);
        let revision = tip?.revision ?? -1n;
        const recorded = events.map((event, i): RecordedEvent => {
          position += 1n;
          revision += 1n;
          rows.position.push(position);
          rows.streamId.push(streamId);
          rows.revision.push(revision);
          rows.eventId.push(event.id);
          rows.type.push(event.type);
          rows.body.push(JSON.stringify(event));
          rows.ledger.push(JSON.stringify(ledger[i]));
          return { streamId, revision, position, recordedAt, event, ledger: ledger[i] };
        });
        for (const key of dedupKeys) {
          keyRows.key.push(key);
          keyRows.position.push(recorded[0].position);
          takenBy.set(key, recorded[0]);
        }
        const last = recorded[recorded.length - 1];
        tipOf.set(streamId, { stream_id: streamId, revision: last.revision, ledger: last.ledger! });
        return { nextExpectedRevision: last.revision, position: last.position, recorded };
      });
      return { results };
    });
    if (position > head) {
      await client.query(WRITE_APPEND, [rows.position, rows.streamId, rows.revision, rows.eventId, rows.type, now, rows.body, rows.ledger, keyRows.key, keyRows.position, position]);
    }
    return outcomes;
  }

  /**
   * Runs `work` on a connection of the pool; with `end`, `work` opened a
   * transaction, which is ended so, and anything `work` throws rolls it back.
   * A connection the server ended while it sat in the pool (a restart, a
   * failover, an administrator) fails its first statement: `work` is tried
   * again on another, as nothing of it can have been committed, at most as
   * often as the pool holds connections. A new connection failing is the
   * answer, and so is a commit cut short (its outcome is unknown). The
   * driver's errors leave as storage faults where they are one (postgresFault).
   */
  private async withConnection<T>(work: (client: PoolClient) => Promise<T>, end?: 'COMMIT' | 'ROLLBACK'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(work, end);
      if ('value' in outcome) return outcome.value;
      if (!outcome.stale || attempt > (this.pool.options.max ?? 10)) throw outcome.error;
    }
  }

  /** One try: its value, or its error and whether it may only have met a connection that went stale in the pool. */
  private async attempt<T>(work: (client: PoolClient) => Promise<T>, end?: 'COMMIT' | 'ROLLBACK'): Promise<{ value: T } | { error: unknown; stale: boolean }> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return { error: postgresFault(error), stale: false };
    }
    const reused = this.connections.has(client);
    this.connections.add(client);
    // A connection lost between two statements is reported by the next one, not as an error nobody listens for (which would end the process).
    const ignore = () => undefined;
    client.on('error', ignore);
    let broken = false;
    try {
      let value: T;
      try {
        value = await work(client);
      } catch (error) {
        if (end) await client.query('ROLLBACK').catch(() => (broken = true));
        const fault = postgresFault(error);
        return { error: fault, stale: reused && storageFaultOf(fault)?.kind === 'unreachable' };
      }
      if (end) {
        try {
          await client.query(end);
        } catch (error) {
          broken = true;
          return { error: postgresFault(error), stale: false };
        }
      }
      return { value };
    } finally {
      client.off('error', ignore);
      client.release(broken);
    }
  }

  /** A read: one statement (a follower stopping as the store closes still reads until the pool ends). */
  private async query<R extends object>(text: string, values?: unknown[]): Promise<R[]> {
    return (await this.withConnection((client) => client.query<R>(text, values))).rows;
  }

  private closedError(): Error | undefined {
    return this.closed ? new Error('Event store is closed') : undefined;
  }

  findByDedupKey(key: string): Promise<RecordedEvent | undefined> {
    return this.keyReads.get(key);
  }

  async ledgerHeads(streamId: string): Promise<ChainHeads> {
    const [row] = await this.query<{ ledger: LedgerRecord }>(`SELECT ledger FROM events WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1`, [streamId]);
    return headsAfter(row?.ledger);
  }

  async readStream(streamId: string, fromRevision = 0n): Promise<RecordedEvent[]> {
    const rows = await this.query<EventRow>(`SELECT ${EVENT_COLUMNS}, e.ledger FROM events AS e WHERE e.stream_id = $1 AND e.revision >= $2 ORDER BY e.revision`, [streamId, fromRevision]);
    return rows.map(toRecorded);
  }

  async readAll(after: bigint, limit: number): Promise<RecordedEvent[]> {
    const rows = await this.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events AS e WHERE e.position > $1 ORDER BY e.position LIMIT $2`, [after, limit]);
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<bigint> {
    const [row] = await this.query<{ position: bigint }>(`SELECT position FROM event_log_head`);
    return row.position;
  }

  /**
   * Takes the head's lock, as an append does, and lets it go: a read-only
   * server (a standby, default_transaction_read_only), a role that may not
   * write, or a writer stuck on the lock is refused as a storage fault.
   */
  async checkWritable(): Promise<void> {
    const refused = this.closedError();
    if (refused) throw refused;
    await this.withConnection((client) => client.query(BEGIN_APPEND), 'ROLLBACK');
  }

  subscribeToAll(after: bigint, handler: LogHandler, onError?: (error: unknown) => void): Subscription {
    this.listener ??= new LogListener({
      pool: this.pool,
      channel: APPEND_CHANNEL,
      heard: (payload) => this.heard(BigInt(payload)),
      // Appends made while not listening notified no one: the head says where the log is.
      listening: () => void this.headPosition().then((head) => this.heard(head), (error: unknown) => this.listenerFailed(error)),
      onError: (error) => this.listenerFailed(error),
    });
    const following = followLog({
      after,
      handler,
      onError,
      read: (position, limit) => this.readAll(position, limit),
      waitForAppend: (position, signal) => this.waitForAppend(position, signal),
    });
    const subscription: Subscription = {
      stop: async () => {
        this.subscriptions.delete(subscription);
        await following.stop();
      },
    };
    this.subscriptions.set(subscription, onError);
    return subscription;
  }

  private listenerFailed(error: unknown): void {
    for (const onError of this.subscriptions.values()) onError?.(error);
  }

  /** A committed position, from this process's appends or another's notification. */
  private heard(position: bigint): void {
    if (position <= this.knownHead) return;
    this.knownHead = position;
    this.appended.emit('append');
  }

  /** Resolves at once when the log is known to be past `after`, else on the next append heard of, or after the poll interval. */
  private waitForAppend(after: bigint, signal: AbortSignal): Promise<void> {
    if (this.knownHead > after) return Promise.resolve();
    return nextAppendOrPoll(this.appended, this.pollIntervalMs, signal);
  }

  /** The server, and the event store's migrations it has recorded (validate's `database` checks). */
  schemaStatus(): Promise<SchemaStatus> {
    return schemaStatus(this.pool, EVENT_STORE_COMPONENT, EVENT_STORE_MIGRATIONS);
  }

  /** Stops the subscriptions and lets the appends under way finish, then closes the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions.keys()].map((subscription) => subscription.stop()));
    await this.listener?.stop();
    await Promise.allSettled([...this.inFlight]);
    await this.pool.end();
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  const recorded: RecordedEvent = {
    streamId: row.stream_id,
    revision: row.revision,
    position: row.position,
    recordedAt: row.recorded_at.toISOString(),
    event: row.body,
  };
  if (row.ledger) recorded.ledger = row.ledger;
  return recorded;
}
