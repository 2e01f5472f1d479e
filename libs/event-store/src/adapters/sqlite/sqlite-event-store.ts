import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { closeSync, fdatasync, openSync } from 'node:fs';
import type { CloudEvent } from '@im/cloudevents';
import type { ChainHeads, LedgerRecord } from '@im/ledger-proof';
import { BackgroundCheckpoints, LedgerChainWorker, quickCheck } from '@im/sqlite-runtime';
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
import { malformedAppend, revisionMatches } from '../../append-checks';
import { followLog, nextAppendOrPoll } from '../../follow-log';
import { chainLedger, headsAfter } from '../../ledger-chaining';
import { TurnBatch } from '../../turn-batch';

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  recorded_at: string;
  body: string;
  /** The ledger record (JSON); absent where a query does not read it. */
  ledger?: string | null;
}

interface PendingAppend {
  streamId: string;
  events: CloudEvent[];
  expected: ExpectedRevision;
  dedupKeys: string[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
  /** The events' JSON, when made before the transaction. */
  bodies?: string[];
  /** Ledger records (JSON) chained off the main thread, valid if the stream is still at `revision` when written. */
  chained?: { revision: number | null; records: string[] };
  /** On the first part of an appendMulti: how many appends, this one and the ones right after it, are written all or none. */
  together?: number;
}

type Outcome = { ok: true; result: AppendResult; recorded: RecordedEvent[] } | { ok: false; error: WrongExpectedRevisionError | DuplicateEventError };

/** A stream's last revision (null: none) and the chain heads it left. */
interface ChainTip {
  revision: number | null;
  heads: ChainHeads;
}

/** What a batch's appends are checked against: each stream's last revision (null: none) and each taken key's position. */
interface BatchChecks {
  heads: Map<string, number | null>;
  taken: Map<string, number>;
}

/** How many recently appended events are kept in memory for followers, at least (up to twice as many). */
const RECENT_EVENTS = 4096;
/** How many streams' chain tips are remembered for chaining off the main thread (others are read from the file). */
const CHAIN_TIPS = 10_000;
/**
 * A batch of fewer events is chained in its transaction, on the main thread:
 * the event loop spends about as much handing it to the worker and taking the
 * answer back, and the append is answered sooner (docs/benchmarks.md, "Night
 * of 2026-11-28"; handing every batch over showed no gain either:
 * "SQLite runtime: what each worker earns").
 */
const CHAIN_HERE_BELOW_EVENTS = 24;

export interface SqliteEventStoreOptions {
  /** How often a follower looks for appends made by other processes. */
  pollIntervalMs?: number;
  /**
   * Computes the ledger's links in a worker thread (@im/sqlite-runtime's
   * LedgerChainWorker), started with the store: the api's store, which takes
   * the appends. Without (the projector, tests), they are computed in the
   * append's transaction.
   */
  chainInWorker?: boolean;
  /**
   * Checkpoints the WAL in a worker thread (@im/sqlite-runtime's
   * BackgroundCheckpoints), not inside the commit that crosses SQLite's
   * threshold: the api's store, with `chainInWorker`.
   */
  checkpointInWorker?: boolean;
}

/**
 * Event store in one SQLite file, WAL mode. An append resolves only once its
 * commit is on disk, but the fsync does not block the event loop: SQLite
 * commits without syncing (synchronous=NORMAL) and the WAL file is then
 * fdatasync'ed on libuv's thread pool. Appends that arrive while one sync runs
 * share the next transaction and the next sync (group commit). Each append's
 * revision and dedup keys are checked before it writes anything, so a
 * conflicting append fails alone without a savepoint; a storage error fails
 * the whole batch.
 *
 * Committed events that are not yet on disk stay invisible to followers
 * (projections) and to duplicate lookups, so nothing derived from an event can
 * outlive it if the machine loses power.
 */
export class SqliteEventStore implements EventStore {
  /** What SQLite's quick_check finds wrong with a store's file, empty when it is sound (read from disk, off the event loop: quickCheck). */
  static checkIntegrity(file: string): Promise<string[]> {
    return quickCheck(file);
  }

  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private readonly pollIntervalMs: number;
  private readonly walFd: number;
  /** The newest events this process appended and synced, so in-process followers need not read them back. */
  private recent: RecordedEvent[] = [];
  private pending: PendingAppend[] = [];
  /** The flush under way (chaining, transaction, sync); one at a time. */
  private flushing: Promise<void> | undefined;
  private readonly chainWorker: LedgerChainWorker | undefined;
  private readonly checkpoints: BackgroundCheckpoints | undefined;
  /** The chain tips of streams this process appended to, newest last. */
  private readonly chainTips = new Map<string, ChainTip>();
  /** The sync in flight and the first position it covers; followers read below that position. */
  private syncing: { done: Promise<void>; from: number } | undefined;
  private closed = false;
  /**
   * Set when a sync of the log failed: what was committed may not be on disk,
   * and a later sync can succeed without it (the kernel drops the failed pages),
   * so nothing is read or written again until a restart recovers from the file.
   */
  private unsynced: Error | undefined;

  private readonly insertEvent;
  private readonly selectHeads;
  private readonly selectAll;
  private readonly selectHead;
  private readonly selectDedup;
  private readonly selectStreams;
  /** Streams read in one turn of the event loop: one query. */
  private readonly streamReads: TurnBatch<string, RecordedEvent[]>;
  /** Dedup keys looked up in one turn of the event loop: one read transaction (a key not taken answers undefined). */
  private readonly keyReads: TurnBatch<string, number | undefined>;
  private readonly insertDedup;
  private readonly selectAt;
  private readonly appendBatch;
  private readonly selectTip;

  constructor(file: string, options: SqliteEventStoreOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.appended.setMaxListeners(0);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // Commits write the WAL without syncing it; flush() syncs it before any append resolves.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // The dedup keys are random, so every append's lookup lands on its own pages: 16 MiB (not 2) keeps more of them in memory.
    this.db.pragma('cache_size = -16384');
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
    upgradeLedger(this.db);
    this.insertEvent = this.db.prepare(
      `INSERT INTO events (stream_id, revision, event_id, type, recorded_at, body, ledger)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectHeads = this.db.prepare(
      `SELECT wanted.value AS stream_id, (SELECT MAX(revision) FROM events WHERE stream_id = wanted.value) AS revision FROM json_each(?) AS wanted`,
    );
    this.selectTip = this.db.prepare(`SELECT revision, ledger FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1`);
    this.selectAll = this.db.prepare(
      `SELECT position, stream_id, revision, recorded_at, body FROM events WHERE position > ? ORDER BY position LIMIT ?`,
    );
    this.selectHead = this.db.prepare(`SELECT COALESCE(MAX(position), 0) FROM events`).pluck();
    // A key at a time: as fast as one query over a JSON array of hundreds of keys, and three times faster for the few of an append.
    this.selectDedup = this.db.prepare(`SELECT position FROM dedup_keys WHERE key = ?`).pluck();
    // Each wanted read is [stream id, from revision]; rows come grouped by read, in revision order.
    this.selectStreams = this.db.prepare(
      `SELECT read.key AS read, e.position, e.stream_id, e.revision, e.recorded_at, e.body, e.ledger
       FROM json_each(?) AS read CROSS JOIN events AS e
       WHERE e.stream_id = read.value ->> 0 AND e.revision >= read.value ->> 1
       ORDER BY read.key, e.revision`,
    );
    this.streamReads = new TurnBatch((reads) => this.readStreams(reads));
    // Each statement outside a transaction starts and ends a read transaction of its own (locks, the WAL's header): 5 of a lookup's 7 µs.
    this.keyReads = new TurnBatch<string, number | undefined>(this.db.transaction((keys: string[]) => this.takenKeys(keys)));
    this.insertDedup = this.db.prepare(`INSERT INTO dedup_keys (key, position) VALUES (?, ?)`);
    this.selectAt = this.db.prepare(
      `SELECT position, stream_id, revision, recorded_at, body FROM events WHERE position = ?`,
    );
    this.appendBatch = this.db.transaction((batch: PendingAppend[]) => {
      const checks = this.checksFor(batch);
      const outcomes: Outcome[] = [];
      for (let i = 0; i < batch.length; i += batch[i].together ?? 1) {
        const parts = batch[i].together === undefined ? [batch[i]] : batch.slice(i, i + batch[i].together!);
        try {
          // Every part is checked before any is written, so a refused one leaves the others unwritten too.
          parts.forEach((append) => this.check(append, checks));
          for (const append of parts) outcomes.push({ ok: true, ...this.write(append, checks) });
        } catch (error) {
          // A refused append wrote nothing; anything else (full, I/O) fails the whole batch, rolled back.
          if (!(error instanceof WrongExpectedRevisionError || error instanceof DuplicateEventError)) throw error;
          parts.forEach(() => outcomes.push({ ok: false, error }));
        }
      }
      return outcomes;
    });
    // The WAL exists once the schema statements ran; it is the only file a commit writes.
    this.walFd = openSync(`${file}-wal`, 'r');
    this.chainWorker = options.chainInWorker ? LedgerChainWorker.start() : undefined;
    this.checkpoints = options.checkpointInWorker ? BackgroundCheckpoints.start(file, this.db) : undefined;
  }

  append(
    streamId: string,
    events: CloudEvent[],
    expected: ExpectedRevision,
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const refused = this.refusal([{ streamId, events }]);
    if (refused) return Promise.reject(refused);
    const dedupKeys = [...new Set(options.dedupKeys ?? [])];
    return new Promise((resolve, reject) => {
      this.pending.push({ streamId, events, expected, dedupKeys, resolve, reject });
      this.scheduleFlush();
    });
  }

  /** The parts go into the same batch, one after the other, so one transaction and one sync write them all or none. */
  appendMulti(appends: StreamAppend[]): Promise<AppendResult[]> {
    const refused = this.refusal(appends);
    if (refused) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      const results: AppendResult[] = [];
      let left = appends.length;
      appends.forEach(({ streamId, events, expected, dedupKeys = [] }, i) => {
        const resolvePart = (result: AppendResult) => {
          results[i] = result;
          if (--left === 0) resolve(results);
        };
        // Every part is refused with the same error: the first rejection settles the promise.
        this.pending.push({ streamId, events, expected, dedupKeys: [...new Set(dedupKeys)], resolve: resolvePart, reject, ...(i === 0 ? { together: appends.length } : {}) });
      });
      this.scheduleFlush();
    });
  }

  /** Why the appends cannot even be tried, if they cannot. */
  private refusal(appends: Pick<StreamAppend, 'streamId' | 'events' | 'dedupKeys'>[]): Error | undefined {
    if (this.closed) return new Error('Event store is closed');
    return this.unsynced ?? malformedAppend(appends);
  }

  /**
   * One flush at a time, and one sync: appends that arrive meanwhile go into
   * the next transaction together. A flush ends once its transaction is
   * committed, so the next one chains its batch while that commit syncs.
   */
  private scheduleFlush(): void {
    if (this.flushing || this.pending.length === 0) return;
    this.flushing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.flush())
      // commitAndSync answers every append itself; anything else it throws is a bug, logged rather than left to end the process.
      .catch((error: unknown) => console.error(error))
      .finally(() => {
        this.flushing = undefined;
        this.scheduleFlush();
      });
  }

  private async flush(): Promise<void> {
    // With nothing to do before the sync in flight ends, the batch is taken after it: everything that arrived meanwhile shares it.
    if (!this.chainWorker) await this.syncing?.done.catch(() => undefined);
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    await this.chainOffThread(batch);
    await this.syncing?.done.catch(() => undefined);
    if (this.unsynced) return batch.forEach((append) => append.reject(this.unsynced));
    // Answers every append itself once synced; the flush is over once the transaction is.
    void this.commitAndSync(batch).catch((error: unknown) => console.error(error));
  }

  /**
   * Has the worker chain the batch's appends from the streams' tips as they
   * stand (the tips this process left, else the file), each append after the
   * batch's earlier ones to its stream. Only this flush writes meanwhile; the
   * transaction still checks each append's stream is at the revision chained
   * from, and chains it itself if not (as it does a small batch).
   */
  private async chainOffThread(batch: PendingAppend[]): Promise<void> {
    if (!this.chainWorker || this.unsynced) return;
    if (batch.reduce((events, append) => events + append.events.length, 0) < CHAIN_HERE_BELOW_EVENTS) return;
    const starts = new Map<string, ChainHeads>();
    const revisions = new Map<string, number | null>();
    const planned = batch.map((append) => {
      append.bodies = append.events.map((event) => JSON.stringify(event));
      if (!revisions.has(append.streamId)) {
        const tip = this.chainTip(append.streamId);
        starts.set(append.streamId, tip.heads);
        revisions.set(append.streamId, tip.revision);
      }
      const revision = revisions.get(append.streamId)!;
      revisions.set(append.streamId, (revision ?? -1) + append.events.length);
      return revision;
    });
    const records = await this.chainWorker.chain(starts, batch.map(({ streamId, bodies }) => ({ streamId, bodies: bodies! })));
    if (records) batch.forEach((append, i) => (append.chained = { revision: planned[i], records: records[i] }));
  }

  private chainTip(streamId: string): ChainTip {
    return this.chainTips.get(streamId) ?? this.storedTip(streamId);
  }

  /** A stream's last revision and the chain heads it left, as the file has them. */
  private storedTip(streamId: string): ChainTip {
    const row = this.selectTip.get(streamId) as { revision: number; ledger: string | null } | undefined;
    return { revision: row ? row.revision : null, heads: headsAfter(parseLedger(row?.ledger)) };
  }

  /** Remembers where a committed append left its stream's chains. */
  private rememberTip(streamId: string, last: RecordedEvent): void {
    this.chainTips.delete(streamId);
    if (this.chainTips.size >= CHAIN_TIPS) this.chainTips.delete(this.chainTips.keys().next().value!);
    this.chainTips.set(streamId, { revision: Number(last.revision), heads: headsAfter(last.ledger) });
  }

  /** One transaction for the batch, then one sync; only then are its appends answered and its events shown to followers. */
  private async commitAndSync(batch: PendingAppend[]): Promise<void> {
    let outcomes;
    try {
      outcomes = this.appendBatch(batch);
    } catch (error) {
      batch.forEach((append) => append.reject(error));
      return;
    }
    if (this.chainWorker) outcomes.forEach((outcome, i) => outcome.ok && this.rememberTip(batch[i].streamId, outcome.recorded[outcome.recorded.length - 1]));
    const stored = outcomes.flatMap((outcome) => (outcome.ok ? outcome.recorded : []));
    if (stored.length > 0) {
      const done = new Promise<void>((resolve, reject) => fdatasync(this.walFd, (error) => (error ? reject(error) : resolve())));
      this.syncing = { done, from: Number(stored[0].position) };
      try {
        await done;
      } catch (error) {
        // Not known to be on disk: no append of the batch may be reported as stored, nor any later one.
        this.unsynced = error as Error;
        batch.forEach((append) => append.reject(error));
        this.pending.splice(0).forEach((append) => append.reject(error));
        return;
      } finally {
        this.syncing = undefined;
      }
      for (const event of stored) this.recent.push(event);
      // Trimmed once it holds twice as many: a copy every round (and the push that regrew it) was several kB per append to collect.
      if (this.recent.length > 2 * RECENT_EVENTS) this.recent = this.recent.slice(-RECENT_EVENTS);
    }
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i].resolve(outcome.result) : batch[i].reject(outcome.error)));
    if (stored.length > 0) this.appended.emit('append');
  }

  /** The heads of the batch's streams and its keys already taken, looked up once for the whole batch. */
  private checksFor(batch: PendingAppend[]): BatchChecks {
    const streams = [...new Set(batch.map((append) => append.streamId))];
    const heads = new Map((this.selectHeads.all(JSON.stringify(streams)) as { stream_id: string; revision: number | null }[]).map((row) => [row.stream_id, row.revision]));
    const keys = batch.flatMap((append) => append.dedupKeys);
    const taken = keys.length === 0 ? new Map<string, number>() : this.takenKeys(keys);
    return { heads, taken };
  }

  private takenKeys(keys: string[]): Map<string, number> {
    const taken = new Map<string, number>();
    for (const key of keys) {
      const position = this.selectDedup.get(key) as number | undefined;
      if (position !== undefined) taken.set(key, position);
    }
    return taken;
  }

  /** Checks the append against the stream's head and the taken keys (both kept up to date with the batch's earlier appends); throws its refusal. */
  private check({ streamId, expected, dedupKeys }: PendingAppend, { heads, taken }: BatchChecks): void {
    // A taken key is the answer even when the stream moved on too.
    for (const key of dedupKeys) {
      const position = taken.get(key);
      if (position !== undefined) throw new DuplicateEventError(key, this.eventAt(position));
    }
    const current = heads.get(streamId) ?? null;
    const actual = current === null ? 'no_stream' : BigInt(current);
    if (!revisionMatches(expected, actual)) throw new WrongExpectedRevisionError(streamId, expected, actual);
  }

  /** Writes a checked append. */
  private write({ streamId, events, dedupKeys, bodies, chained }: PendingAppend, { heads, taken }: BatchChecks): { result: AppendResult; recorded: RecordedEvent[] } {
    const current = heads.get(streamId) ?? null;
    const recordedAt = new Date().toISOString();
    let revision = current === null ? -1 : current;
    // Chained off the main thread from where the stream still stands, else here.
    const offThread = chained?.revision === current ? chained.records : undefined;
    const ledger = offThread ? offThread.map((text) => JSON.parse(text) as LedgerRecord) : chainLedger(this.lastHeads(streamId), events);
    // The events themselves, not their JSON read back: they are JSON values (a parsed body or built by the service), so equal to what a read gives.
    const recorded = events.map((event, i): RecordedEvent => {
      revision += 1;
      const { lastInsertRowid } = this.insertEvent.run(streamId, revision, event.id, event.type, recordedAt, bodies?.[i] ?? JSON.stringify(event), offThread?.[i] ?? JSON.stringify(ledger[i]));
      return { streamId, revision: BigInt(revision), position: BigInt(lastInsertRowid), recordedAt, event, ledger: ledger[i] };
    });
    heads.set(streamId, revision);
    const position = Number(recorded[0].position);
    for (const key of dedupKeys) {
      this.insertDedup.run(key, position);
      taken.set(key, position);
    }
    const last = recorded[recorded.length - 1];
    return { result: { nextExpectedRevision: last.revision, position: last.position, recorded }, recorded };
  }

  /** The stream's chain heads, from its last event's record (inside the append's transaction: what the batch appended before counts). */
  private lastHeads(streamId: string): ChainHeads {
    return this.storedTip(streamId).heads;
  }

  async ledgerHeads(streamId: string): Promise<ChainHeads> {
    if (this.unsynced) throw this.unsynced;
    return this.lastHeads(streamId);
  }

  private eventAt(position: number): RecordedEvent {
    return toRecorded(this.selectAt.get(position) as EventRow);
  }

  async findByDedupKey(key: string): Promise<RecordedEvent | undefined> {
    if (this.unsynced) throw this.unsynced;
    const position = await this.keyReads.get(key);
    if (position === undefined) return undefined;
    // A duplicate is only reported once the event it duplicates is on disk.
    await this.onDisk(position);
    return this.eventAt(position);
  }

  async readStream(streamId: string, fromRevision = 0n): Promise<RecordedEvent[]> {
    if (this.unsynced) throw this.unsynced;
    const events = await this.streamReads.get(`${Number(fromRevision)}\n${streamId}`);
    if (events.length > 0) await this.onDisk(Number(events[events.length - 1].position));
    return events;
  }

  /** Resolves once the log holds `position` on disk; rejects when the sync that carries it fails. */
  private async onDisk(position: number): Promise<void> {
    const syncing = this.syncing;
    if (syncing && position >= syncing.from) await syncing.done;
  }

  /** The streams read in one turn of the event loop, each from its revision, in one query. */
  private readStreams(reads: string[]): Map<string, RecordedEvent[]> {
    const wanted = reads.map((read) => {
      const cut = read.indexOf('\n');
      return [read.slice(cut + 1), Number(read.slice(0, cut))];
    });
    const found = new Map<string, RecordedEvent[]>(reads.map((read) => [read, []]));
    for (const row of this.selectStreams.all(JSON.stringify(wanted)) as (EventRow & { read: number })[]) found.get(reads[row.read])!.push(toRecorded(row));
    return found;
  }

  /** The log after `after`, up to what is on disk. */
  async readAll(after: bigint, limit: number): Promise<RecordedEvent[]> {
    if (this.unsynced) throw this.unsynced;
    const cached = this.recentAfter(after, limit);
    if (cached.length > 0) return cached;
    const rows = this.selectAll.all(Number(after), limit) as EventRow[];
    const syncing = this.syncing;
    return (syncing ? rows.filter((row) => row.position < syncing.from) : rows).map(toRecorded);
  }

  /** Events right after `after` from the recent appends, as long as they are gapless (another process may append too). */
  private recentAfter(after: bigint, limit: number): RecordedEvent[] {
    // Usually gapless, so the wanted event sits at its distance from the first one.
    const start = this.recent.length ? Number(after + 1n - this.recent[0].position) : -1;
    if (start < 0 || start >= this.recent.length || this.recent[start].position !== after + 1n) return [];
    const found: RecordedEvent[] = [];
    for (let i = start; i < this.recent.length && found.length < limit; i++) {
      if (this.recent[i].position !== after + BigInt(found.length) + 1n) break;
      found.push(this.recent[i]);
    }
    return found;
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
      waitForAppend: (position, signal) => this.waitForAppend(position, signal),
    });
  }

  /** Resolves on the next append in this process, or after the poll interval for other processes' appends. */
  private waitForAppend(after: bigint, signal: AbortSignal): Promise<void> {
    const newest = this.recent[this.recent.length - 1];
    if (newest && newest.position > after) return Promise.resolve();
    return nextAppendOrPoll(this.appended, this.pollIntervalMs, signal);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Drain: the flush and the sync under way, then whatever queued behind them.
    while (this.flushing || this.syncing || this.pending.length > 0) {
      this.scheduleFlush();
      await (this.flushing ?? this.syncing?.done.catch(() => undefined));
    }
    await this.chainWorker?.stop();
    await this.checkpoints?.stop();
    closeSync(this.walFd);
    this.db.close();
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  const recorded: RecordedEvent = {
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    position: BigInt(row.position),
    recordedAt: row.recorded_at,
    event: JSON.parse(row.body) as CloudEvent,
  };
  const ledger = parseLedger(row.ledger);
  if (ledger) recorded.ledger = ledger;
  return recorded;
}

const parseLedger = (text: string | null | undefined): LedgerRecord | undefined => (text ? (JSON.parse(text) as LedgerRecord) : undefined);

/** Events per transaction of the upgrade: a start cut short keeps what it upgraded and goes on from there. */
const UPGRADE_BATCH = 1000;

/**
 * A ledger written before the ledger had salts and links gets them in place: a `ledger`
 * column, filled for every event without one, stream by stream in revision order from the
 * record of the event before (so an upgrade cut short resumes). No event body changes.
 */
function upgradeLedger(db: Database.Database): void {
  const columns = db.prepare(`SELECT name FROM pragma_table_info('events')`).pluck().all() as string[];
  if (!columns.includes('ledger')) db.exec(`ALTER TABLE events ADD COLUMN ledger TEXT`);
  // Holds only events still to upgrade: empty once done, so later starts find nothing at once.
  db.exec(`CREATE INDEX IF NOT EXISTS events_without_ledger ON events (stream_id, revision) WHERE ledger IS NULL`);
  const pending = db.prepare(
    `SELECT position, stream_id, revision, body FROM events WHERE (stream_id, revision) > (?, ?) AND ledger IS NULL ORDER BY stream_id, revision LIMIT ${UPGRADE_BATCH}`,
  );
  const recordAt = db.prepare(`SELECT ledger FROM events WHERE stream_id = ? AND revision = ?`).pluck();
  const update = db.prepare(`UPDATE events SET ledger = ? WHERE position = ?`);
  let after: [string, number] = ['', -1];
  let stream: { id: string; revision: number; heads: ChainHeads } | undefined;
  for (;;) {
    const rows = pending.all(...after) as (EventRow & { revision: number })[];
    if (rows.length === 0) return;
    db.transaction(() => {
      for (const row of rows) {
        if (stream?.id !== row.stream_id || stream.revision !== row.revision - 1) {
          stream = { id: row.stream_id, revision: row.revision - 1, heads: headsAfter(parseLedger(recordAt.get(row.stream_id, row.revision - 1) as string | undefined)) };
        }
        const [record] = chainLedger(stream.heads, [JSON.parse(row.body) as CloudEvent]);
        update.run(JSON.stringify(record), row.position);
        stream = { id: row.stream_id, revision: row.revision, heads: record.heads };
      }
    })();
    const last = rows[rows.length - 1];
    after = [last.stream_id, last.revision];
  }
}
