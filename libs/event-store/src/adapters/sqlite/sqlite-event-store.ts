import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { CloudEvent } from '@im/cloudevents';
import {
  type AppendOptions,
  type AppendResult,
  DuplicateEventError,
  type EventStore,
  type ExpectedRevision,
  type LogHandler,
  type RecordedEvent,
  type Subscription,
  WrongExpectedRevisionError,
} from '../../event-store.port';
import { followLog } from '../../follow-log';

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  recorded_at: string;
  body: string;
}

interface PendingAppend {
  streamId: string;
  events: CloudEvent[];
  expected: ExpectedRevision;
  dedupKeys: string[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

export interface SqliteEventStoreOptions {
  /** How often a follower looks for appends made by other processes. */
  pollIntervalMs?: number;
}

/**
 * Event store in one SQLite file (WAL, synchronous=FULL: a commit is on disk
 * before the append resolves). Appends that arrive in the same tick share one
 * transaction and one fsync (group commit); each runs in its own savepoint so
 * a conflicting append fails alone.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private readonly pollIntervalMs: number;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;

  private readonly insertEvent;
  private readonly selectRevision;
  private readonly selectStream;
  private readonly selectAll;
  private readonly selectHead;
  private readonly selectDedup;
  private readonly insertDedup;
  private readonly selectAt;
  private readonly appendOne;
  private readonly appendBatch;

  constructor(file: string, options: SqliteEventStoreOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.appended.setMaxListeners(0);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position    INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id   TEXT    NOT NULL,
        revision    INTEGER NOT NULL,
        event_id    TEXT    NOT NULL,
        type        TEXT    NOT NULL,
        recorded_at TEXT    NOT NULL,
        body        TEXT    NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE TABLE IF NOT EXISTS dedup_keys (
        key      TEXT PRIMARY KEY,
        position INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
    this.insertEvent = this.db.prepare(
      `INSERT INTO events (stream_id, revision, event_id, type, recorded_at, body)
       VALUES (@streamId, @revision, @eventId, @type, @recordedAt, @body)`,
    );
    this.selectRevision = this.db
      .prepare(`SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?`)
      .pluck();
    this.selectStream = this.db.prepare(
      `SELECT position, stream_id, revision, recorded_at, body FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`,
    );
    this.selectAll = this.db.prepare(
      `SELECT position, stream_id, revision, recorded_at, body FROM events WHERE position > ? ORDER BY position LIMIT ?`,
    );
    this.selectHead = this.db.prepare(`SELECT COALESCE(MAX(position), 0) FROM events`).pluck();
    this.selectDedup = this.db.prepare(`SELECT position FROM dedup_keys WHERE key = ?`).pluck();
    this.insertDedup = this.db.prepare(`INSERT INTO dedup_keys (key, position) VALUES (?, ?)`);
    this.selectAt = this.db.prepare(
      `SELECT position, stream_id, revision, recorded_at, body FROM events WHERE position = ?`,
    );
    this.appendOne = this.db.transaction((append: PendingAppend) => this.write(append));
    this.appendBatch = this.db.transaction((batch: PendingAppend[]) =>
      batch.map((append) => {
        try {
          return { ok: true as const, result: this.appendOne(append) };
        } catch (error) {
          return { ok: false as const, error };
        }
      }),
    );
  }

  append(
    streamId: string,
    events: CloudEvent[],
    expected: ExpectedRevision,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('Event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('Nothing to append'));
    const dedupKeys = [...new Set(options.dedupKeys ?? [])];
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, dedupKeys, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.flushScheduled = false;
    let outcomes;
    try {
      outcomes = this.appendBatch(batch);
    } catch (error) {
      batch.forEach((append) => append.reject(error));
      return;
    }
    outcomes.forEach((outcome, i) =>
      outcome.ok ? batch[i].resolve(outcome.result) : batch[i].reject(outcome.error),
    );
    if (outcomes.some((outcome) => outcome.ok)) this.appended.emit('append');
  }

  private write({ streamId, events, expected, dedupKeys }: PendingAppend): AppendResult {
    for (const key of dedupKeys) {
      const taken = this.selectDedup.get(key) as number | undefined;
      if (taken !== undefined) throw new DuplicateEventError(key, this.eventAt(taken));
    }
    const current = this.selectRevision.get(streamId) as number | null;
    const actual = current === null ? 'no_stream' : BigInt(current);
    if (!matches(expected, actual)) throw new WrongExpectedRevisionError(streamId, expected, actual);
    const recordedAt = new Date().toISOString();
    let revision = current === null ? -1 : current;
    let position = 0;
    for (const event of events) {
      revision += 1;
      position = Number(
        this.insertEvent.run({
          streamId,
          revision,
          eventId: event.id,
          type: event.type,
          recordedAt,
          body: JSON.stringify(event),
        }).lastInsertRowid,
      );
    }
    const first = position - events.length + 1;
    dedupKeys.forEach((key) => this.insertDedup.run(key, first));
    return { nextExpectedRevision: BigInt(revision), position: BigInt(position) };
  }

  private eventAt(position: number): RecordedEvent {
    return toRecorded(this.selectAt.get(position) as EventRow);
  }

  async findByDedupKey(key: string): Promise<RecordedEvent | undefined> {
    const position = this.selectDedup.get(key) as number | undefined;
    return position === undefined ? undefined : this.eventAt(position);
  }

  async readStream(streamId: string, fromRevision = 0n): Promise<RecordedEvent[]> {
    return (this.selectStream.all(streamId, Number(fromRevision)) as EventRow[]).map(toRecorded);
  }

  async readAll(after: bigint, limit: number): Promise<RecordedEvent[]> {
    return (this.selectAll.all(Number(after), limit) as EventRow[]).map(toRecorded);
  }

  async checkWritable(): Promise<void> {
    // Taking the write lock and releasing it shows the file is writable and not locked out.
    this.db.exec('BEGIN IMMEDIATE; ROLLBACK;');
  }

  async headPosition(): Promise<bigint> {
    return BigInt(this.selectHead.get() as number);
  }

  subscribeToAll(after: bigint, handler: LogHandler, onError?: (error: unknown) => void): Subscription {
    return followLog({
      after,
      handler,
      onError,
      read: (position, limit) => this.readAll(position, limit),
      waitForAppend: (signal) => this.waitForAppend(signal),
    });
  }

  /** Resolves on the next append in this process, or after the poll interval for other processes' appends. */
  private waitForAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.appended.off('append', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      this.appended.once('append', done);
      signal.addEventListener('abort', done);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pending.length > 0) this.flush();
    this.db.close();
  }
}

function matches(expected: ExpectedRevision, actual: bigint | 'no_stream'): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    position: BigInt(row.position),
    recordedAt: row.recorded_at,
    event: JSON.parse(row.body) as CloudEvent,
  };
}
