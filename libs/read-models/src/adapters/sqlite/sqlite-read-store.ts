import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Incident, Status } from '@im/incidents';
import type { BulkLoadOptions, DocumentWrite, ProjectionCommit, StoredDocument } from '../../projection-store.port';
import type { ReadStore } from '../../read-store';
import type { IncidentListQuery, IncidentQueries } from '../../incidents/incident-queries.port';
import type { TimelineQueries, TimelineQuery, TimelineRow } from '../../timeline/timeline-queries.port';
import type { StoredDoc } from '../../timeline/timeline.projection';
import type { NotificationPreferences } from '../../preferences/preferences.projection';
import type { PreferencesQueries } from '../../preferences/preferences-queries.port';
import type { IntegrationKeyRecord } from '../../integration-keys/integration-key.projection';
import type { IntegrationKeyQueries } from '../../integration-keys/integration-key-queries.port';
import type { IntegrationKeyHistoryEntry } from '../../integration-keys/integration-key-history.projection';
import type { IntegrationKeyHistoryQueries } from '../../integration-keys/integration-key-history-queries.port';
import type { WebhookRecord } from '../../webhooks/webhook.projection';
import type { WebhookQueries } from '../../webhooks/webhook-queries.port';
import type { Projection } from '../../projection';
import type { ProjectionFault } from '../../projection-fault';
import { ALL_PROJECTIONS } from '../../read-models';
import { ReadModelCatchingUpError } from '../../projection-progress';
import { BackgroundCheckpoints, BackgroundReads, type BulkLoadSettings, buildIndexesInWorker, quickCheck, type RowShape } from '@im/sqlite-runtime';
import { SqliteCollection } from './sqlite-schema';
import { CHANGED_FACT_COLUMNS, type ChangedFactColumns, changedFacts, changedFactsOf, incidentPage, sqlChangesRead, isOneOf, type ListClause, timelinePage, timelineRow } from '../sql-lists';
import { StatementCache } from './statement-cache';
import { SqliteWrites, type WriteStep } from './sqlite-writes';
import { SqliteOutboundStore } from './sqlite-outbound-store';
import type { OutboundStore } from '../../outbound/outbound-store.port';
import { SqliteNotificationStore } from './sqlite-notification-store';
import { SqliteLeaseStore } from './sqlite-lease-store';
import { PROJECTIONS_LEASE } from '../../leases/lease-store.port';
import type { PushSubscriptionRecord } from '../../push-subscriptions/push-subscription.projection';
import type { PushSubscriptionQueries } from '../../push-subscriptions/push-subscription-queries.port';
import { type EscalationPolicyRecord, escalationPolicyProjection, type ScheduleRecord, scheduleProjection, type ServiceRecord, serviceProjection } from '../../oncall/oncall.projections';
import type { ConfigDocuments, OncallQueries } from '../../oncall/oncall-queries.port';
import { type HeartbeatRecord, heartbeatProjection } from '../../oncall/heartbeat.projection';
import type { IncidentMetricsQueries } from '../../metrics/incident-metrics-queries.port';
import { incidentMetricsProjection } from '../../metrics/incident-metrics.projection';

const MAX_KEYS_PER_QUERY = 500;

const UPSERT_CHECKPOINT = `INSERT INTO checkpoints (projection, position) VALUES (?, ?)
  ON CONFLICT (projection) DO UPDATE SET position = excluded.position`;
const UPSERT_FAULT = `INSERT INTO projection_faults (projection, position, event_id, stream_id, error, first_seen, last_seen)
  VALUES (@projection, @position, @eventId, @streamId, @error, @firstSeen, @lastSeen)
  ON CONFLICT (projection, position) DO UPDATE SET error = excluded.error,
    first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`;

/**
 * Reads run on another connection to the same file, off the event loop (the
 * runtime's BackgroundReads). `all` answers undefined when it cannot run the
 * read (not started yet, stopped, or the statement failed there): the store
 * then runs it on its own connection, which raises any error where it belongs.
 */
export type SqliteBackgroundReads = Pick<BackgroundReads, 'all' | 'close'>;

export interface SqliteReadStoreOptions {
  /**
   * Runs the embedded store's workers for this file (@im/sqlite-runtime): the
   * incident lists, loads of incidents by id, timeline pages and the
   * response metrics' window on a read-only connection of their own (started with the first such read), the
   * indexes that end a bulk load, and the WAL's checkpoints. Without (most
   * tests), all runs on the store's connection.
   */
  workers?: boolean;
  /** In place of the reads' worker `workers` opens: a test's, which watches or replaces it. */
  backgroundReads?: SqliteBackgroundReads;
}

/** A list's statement and parameters, planned from the query and the indexes present when it runs. */
type ListPlan = () => { sql: string; params: unknown[] };

/** Where a list runs: off the event loop when the store has background reads, else (or when they cannot) on the store's connection. */
class ListReads {
  constructor(
    private readonly sql: StatementCache,
    private readonly background: SqliteBackgroundReads | undefined,
  ) {}

  async all(plan: ListPlan, shape: RowShape, { inBackground = true } = {}): Promise<unknown[]> {
    if (this.background && inBackground) {
      const { sql, params } = plan();
      const rows = await this.background.all(sql, params, shape);
      if (rows) return rows;
    }
    // Planned again: a bulk load may have dropped the indexes meanwhile, which planning answers as a read during a rebuild.
    const { sql, params } = plan();
    const statement = this.sql.get(sql);
    return (shape === 'pluck' ? statement.pluck() : statement.raw()).all(...params);
  }
}

/**
 * Timeline reads of up to this many rows (a phone's quick timeline, small
 * pages) are read in the background; larger ones in place. 50-row pages in
 * the worker took 1.35 times the CPU and ran 0.78 times as fast at 8
 * connections (level at 32), and 1,000-row pages and exports 0.53 (8
 * connections) and 0.69 (1 connection) times as fast: their rows copied
 * across threads cost more than the statement saves (docs/benchmarks.md,
 * "SQLite runtime: what each worker earns").
 */
const BACKGROUND_PAGE_ROWS = 20;

export class SqliteReadStore implements ReadStore {
  /** What SQLite's quick_check finds wrong with a store's file, empty when it is sound (read from disk, off the event loop: quickCheck). */
  static checkIntegrity(file: string): Promise<string[]> {
    return quickCheck(file);
  }

  private readonly db: Database.Database;
  private readonly sql: StatementCache;
  private readonly selectCheckpoint;
  private readonly collections: Map<string, SqliteCollection>;
  private readonly buildIndexes: ((statements: string[], settings: BulkLoadSettings) => Promise<void>) | undefined;
  private readonly backgroundReads: SqliteBackgroundReads | undefined;
  private readonly checkpoints: BackgroundCheckpoints | undefined;
  private readonly writes: SqliteWrites;
  readonly incidents: IncidentQueries;
  readonly timeline: TimelineQueries;
  readonly preferences: PreferencesQueries;
  readonly integrationKeys: IntegrationKeyQueries;
  readonly integrationKeyHistory: IntegrationKeyHistoryQueries;
  readonly webhooks: WebhookQueries;
  readonly outbound: OutboundStore;
  readonly pushSubscriptions: PushSubscriptionQueries;
  readonly notifications: SqliteNotificationStore;
  readonly leases: SqliteLeaseStore;
  readonly oncall: OncallQueries;
  readonly metrics: IncidentMetricsQueries;

  /**
   * Opens the file, creating each projection's table, or bringing one written by an earlier version to its declaration.
   */
  constructor(
    file: string,
    projections: Projection<unknown>[] = ALL_PROJECTIONS,
    { workers = false, backgroundReads = workers ? new BackgroundReads(file, (message) => console.error(message)) : undefined }: SqliteReadStoreOptions = {},
  ) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A read model can always be rebuilt from the log, so a lost tail after a power cut is replayed, not lost.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.buildIndexes = workers ? (statements, settings) => buildIndexesInWorker(file, statements, settings) : undefined;
    this.backgroundReads = backgroundReads;
    this.db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS projection_faults (
      projection TEXT NOT NULL, position INTEGER NOT NULL, event_id TEXT NOT NULL, stream_id TEXT NOT NULL,
      error TEXT NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
      PRIMARY KEY (projection, position)
    );`);
    this.collections = new Map(projections.map((projection) => [projection.name, new SqliteCollection(this.db, projection)]));
    this.collections.forEach((collection) => collection.sync());
    // Once the file exists with its WAL (the worker opens it as it is).
    this.checkpoints = workers ? BackgroundCheckpoints.start(file, this.db) : undefined;
    this.selectCheckpoint = this.db
      .prepare(`SELECT position FROM checkpoints WHERE projection = ?`)
      .pluck();
    this.sql = new StatementCache(this.db);
    this.writes = new SqliteWrites(this.db, this.sql);
    const lists = new ListReads(this.sql, backgroundReads);
    this.incidents = new SqliteIncidentQueries(this.db, this.sql, lists, this.collection('incidents'), this.collection('assignments'));
    this.timeline = new SqliteTimelineQueries(this.db, lists, this.collection('timeline'));
    const selectPreferences = this.db.prepare(`SELECT doc FROM preferences WHERE key = ?`).pluck();
    this.preferences = {
      findByUser: async (userId) => {
        const doc = selectPreferences.get(userId) as string | undefined;
        return doc === undefined ? undefined : (JSON.parse(doc) as NotificationPreferences);
      },
    };
    this.integrationKeys = this.byCreation<IntegrationKeyRecord>('integration_keys');
    const selectKeyHistory = this.db.prepare(`SELECT doc FROM integration_key_history ORDER BY position`).pluck();
    this.integrationKeyHistory = {
      list: async () => (selectKeyHistory.all() as string[]).map((doc) => JSON.parse(doc) as IntegrationKeyHistoryEntry),
    };
    this.leases = new SqliteLeaseStore(this.db);
    this.outbound = new SqliteOutboundStore(this.db, this.writes, this.leases);
    this.notifications = new SqliteNotificationStore(this.db, this.writes, this.leases);
    const selectSubscriptions = this.db.prepare(`SELECT doc FROM push_subscriptions WHERE user_id = ? ORDER BY created_at, key`).pluck();
    this.pushSubscriptions = {
      listByUser: async (userId) => (selectSubscriptions.all(userId) as string[]).map((doc) => JSON.parse(doc) as PushSubscriptionRecord),
    };
    this.webhooks = this.byCreation<WebhookRecord>('webhooks');
    this.oncall = {
      services: this.byCreation<ServiceRecord>(serviceProjection.name),
      escalationPolicies: this.byCreation<EscalationPolicyRecord>(escalationPolicyProjection.name),
      schedules: this.byCreation<ScheduleRecord>(scheduleProjection.name),
      heartbeats: this.byCreation<HeartbeatRecord>(heartbeatProjection.name),
    };
    const metrics = this.collection(incidentMetricsProjection.name);
    this.metrics = {
      // The rows as one JSON text, parsed at once: half the time of 100,000 rows of eleven values each (docs/benchmarks.md, "Response metrics").
      changedSince: async (after, limit) => {
        const plan = () => {
          const { sql, params } = changedFacts(`${metrics.name} ${metrics.indexedBy('by_change')}`, after, limit);
          return { sql: `SELECT json_group_array(json_array(${CHANGED_FACT_COLUMNS})) FROM (${sql})`, params };
        };
        const [rows] = (await lists.all(plan, 'pluck')) as [string];
        return sqlChangesRead(after, (JSON.parse(rows) as ChangedFactColumns[]).map(changedFactsOf).sort((a, b) => (a.position < b.position ? -1 : 1)));
      },
    };
  }

  /** A read model of an administrator's handful, found by id or listed oldest first (its `created_at` column; ties by key). */
  private byCreation<Doc>(table: string): ConfigDocuments<Doc> {
    const one = this.db.prepare(`SELECT doc FROM ${table} WHERE key = ?`).pluck();
    const all = this.db.prepare(`SELECT doc FROM ${table} ORDER BY created_at, key`).pluck();
    const position = this.db.prepare(`SELECT position FROM ${table} WHERE key = ?`).pluck();
    return {
      findById: async (id) => {
        const doc = one.get(id) as string | undefined;
        return doc === undefined ? undefined : (JSON.parse(doc) as Doc);
      },
      list: async () => (all.all() as string[]).map((doc) => JSON.parse(doc) as Doc),
      positionOf: async (id) => {
        const found = position.get(id) as number | undefined;
        return found === undefined ? undefined : BigInt(found);
      },
    };
  }

  async checkpoint(projection: string): Promise<bigint> {
    const position = this.selectCheckpoint.get(projection) as number | undefined;
    return BigInt(position ?? 0);
  }

  async load<Doc>(projection: string, keys: string[]): Promise<Map<string, StoredDocument<Doc>>> {
    const table = this.collection(projection).name;
    const found = new Map<string, StoredDocument<Doc>>();
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += MAX_KEYS_PER_QUERY) {
      const chunk = unique.slice(i, i + MAX_KEYS_PER_QUERY);
      const rows = this.sql
        .get(`SELECT key, position, doc FROM ${table} WHERE key IN (${chunk.map(() => '?').join(',')})`)
        .all(...chunk) as { key: string; position: number; doc: string }[];
      rows.forEach((row) =>
        found.set(row.key, { doc: JSON.parse(row.doc) as Doc, position: BigInt(row.position) }),
      );
    }
    return found;
  }

  async commit<Doc>(projection: string, writes: DocumentWrite<Doc>[], position: bigint): Promise<void> {
    return this.commitBatch([{ projection, writes, position }]);
  }

  /** One transaction, fenced by the lease `projections` (bulk loads commit here too). */
  async commitBatch(commits: ProjectionCommit[]): Promise<void> {
    await this.writes.transaction(commits.flatMap((commit) => this.written(commit)), this.leases.guard([PROJECTIONS_LEASE]));
  }

  private written({ projection, writes, position, faults = [] }: ProjectionCommit): WriteStep[] {
    const collection = this.collection(projection);
    const remove = `DELETE FROM ${collection.name} WHERE key = ?`;
    return [
      ...writes.map((write): WriteStep =>
        write.doc === undefined ? [remove, [write.key]] : [collection.upsertSql, [write.key, Number(write.position), ...collection.written(write.doc)]],
      ),
      ...faults.map((fault): WriteStep => [UPSERT_FAULT, { ...fault, position: Number(fault.position) }]),
      [UPSERT_CHECKPOINT, [projection, Number(position)]],
    ];
  }

  async reset(projection: string): Promise<void> {
    const table = this.collection(projection).name;
    await this.writes.transaction([
      [`DELETE FROM ${table}`, []],
      [`DELETE FROM checkpoints WHERE projection = ?`, [projection]],
      [`DELETE FROM projection_faults WHERE projection = ?`, [projection]],
    ]);
  }

  async projectionFaults(): Promise<ProjectionFault[]> {
    const rows = this.sql
      .get(
        `SELECT projection, position, event_id AS eventId, stream_id AS streamId, error, first_seen AS firstSeen, last_seen AS lastSeen
         FROM projection_faults ORDER BY projection, position`,
      )
      .all() as (Omit<ProjectionFault, 'position'> & { position: number })[];
    return rows.map((row) => ({ ...row, position: BigInt(row.position) }));
  }

  /**
   * Loads without the secondary indexes (built once at the end, by sorting,
   * instead of row by row) and without syncing. If the rebuild is cut short,
   * the next start re-creates the indexes and the rebuild can run again.
   */
  async bulkLoad<T>(work: () => Promise<T>, { projections, crashSafe = false }: BulkLoadOptions = {}): Promise<T> {
    const loaded = projections ? projections.map((name) => this.collection(name)) : [...this.collections.values()];
    loaded.forEach((collection) => collection.dropIndexes());
    if (!crashSafe) this.db.pragma('synchronous = OFF');
    // The rebuild's process exits afterwards; a serving api keeps what the cache grew to (the allocator rarely returns it).
    this.db.pragma(`cache_size = ${crashSafe ? -32 * 1024 : -256 * 1024}`);
    try {
      return await work();
    } finally {
      const build = this.buildIndexes;
      const settings: BulkLoadSettings = {
        cacheSize: this.db.pragma('cache_size', { simple: true }) as number,
        busyTimeoutMs: this.db.pragma('busy_timeout', { simple: true }) as number,
      };
      for (const collection of loaded) await collection.restoreIndexes(build && ((statements) => build(statements, settings)));
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('cache_size = -2000');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
  }

  async close(): Promise<void> {
    await this.backgroundReads?.close();
    await this.checkpoints?.stop();
    if (this.db.open) this.db.close();
  }

  private collection(projection: string): SqliteCollection {
    const collection = this.collections.get(projection);
    if (!collection) throw new Error(`Unknown projection ${projection}`);
    return collection;
  }
}

/** A list's statement: its SELECT and FROM, then the shared clause. */
const select = (head: string, { clause, params }: ListClause) => ({ sql: `${head} ${clause}`, params });

/** Above this many assignments, walking the newest-first index beats sorting them all. */
const SORT_THRESHOLD = 500;

class SqliteIncidentQueries implements IncidentQueries {
  private readonly selectById;
  private readonly selectExists;
  private readonly holdsMany;
  private readonly plans = new LRUCache<string, boolean>({ max: 10_000, ttl: 1000 });

  constructor(
    db: Database.Database,
    private readonly sql: StatementCache,
    private readonly lists: ListReads,
    private readonly incidents: SqliteCollection,
    private readonly assignments: SqliteCollection,
  ) {
    this.selectById = db.prepare(`SELECT doc FROM incidents WHERE key = ?`).pluck();
    this.selectExists = db.prepare(`SELECT 1 FROM incidents WHERE key = ?`).pluck();
    // All that matters is whether the threshold is exceeded: one row past it, skipped to inside the index (half the cost of counting up to it).
    this.holdsMany = db.prepare(`SELECT 1 FROM assignments WHERE user_id = ? LIMIT 1 OFFSET ${SORT_THRESHOLD}`).pluck();
  }

  async exists(id: string): Promise<boolean> {
    return this.selectExists.get(id) !== undefined;
  }

  /**
   * Which plan a user's list takes. Both give the same rows, so an answer a
   * second old costs at most a slower plan, and the check (a walk of 500 index
   * entries) was a third of the list's time.
   */
  private holdsManyIncidents(userId: string): boolean {
    let many = this.plans.get(userId);
    if (many === undefined) this.plans.set(userId, (many = this.holdsMany.get(userId) !== undefined));
    return many;
  }

  async findById(id: string): Promise<Incident | undefined> {
    const doc = this.selectById.get(id) as string | undefined;
    return doc === undefined ? undefined : (JSON.parse(doc) as Incident);
  }

  async findMany(ids: string[]): Promise<Map<string, Incident>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, Incident>();
    for (let i = 0; i < unique.length; i += MAX_KEYS_PER_QUERY) {
      const chunk = unique.slice(i, i + MAX_KEYS_PER_QUERY);
      const sql = `SELECT doc FROM incidents WHERE key IN (${chunk.map(() => '?').join(',')})`;
      // In the background, as the lists are: with the worker's requests batched per turn, under load the hop costs less than the statement here.
      const docs = (await this.lists.all(() => ({ sql, params: chunk }), 'pluck')) as string[];
      docs.forEach((doc) => {
        const incident = JSON.parse(doc) as Incident;
        found.set(incident.id, incident);
      });
    }
    return found;
  }

  async list(query: IncidentListQuery): Promise<Incident[]> {
    return this.select(() => {
      this.incidents.requireIndexes();
      return this.page('incidents', [], [], query);
    });
  }

  /**
   * Refused while either table's indexes are down, not only the incidents':
   * after a bulk load they are built one table after the other, and without
   * its own, each row's assignment check would scan the whole table.
   */
  async listForUser(userId: string, query: Omit<IncidentListQuery, 'after'>): Promise<Incident[]> {
    return this.select(() => {
      const assignments = `assignments ${this.assignments.indexedBy('by_user')}`;
      // Few incidents: fetch them and sort. Many: walk the newest-first index and stop after `limit` matches.
      return this.holdsManyIncidents(userId)
        ? this.page(`incidents ${this.incidents.indexedBy('by_created')}`, [`EXISTS (SELECT 1 FROM ${assignments} WHERE user_id = ? AND incident_id = incidents.key)`], [userId], query)
        : this.page('incidents', [`key IN (SELECT incident_id FROM ${assignments} WHERE user_id = ?)`], [userId], query);
    });
  }

  async countOfService(serviceId: string, statuses: readonly Status[]): Promise<number> {
    this.incidents.requireIndexes();
    const where = ['service_id = ?'];
    const params: unknown[] = [serviceId];
    isOneOf(where, params, 'status', statuses);
    return this.sql.get(`SELECT count(*) FROM incidents ${this.incidents.indexedBy('by_service')} WHERE ${where.join(' AND ')}`).pluck().get(...params) as number;
  }

  async listPaging({ limit, after }: { limit: number; after?: string }): Promise<Incident[]> {
    this.incidents.requireIndexes();
    const where = [`paging_exhausted = 0`, `status = 'open'`, 'escalation_policy_id IS NOT NULL'];
    const params: unknown[] = [];
    if (after !== undefined) {
      where.push('key > ?');
      params.push(after);
    }
    const docs = this.sql.get(`SELECT doc FROM incidents ${this.incidents.indexedBy('by_paging')} WHERE ${where.join(' AND ')} ORDER BY key LIMIT ?`).pluck().all(...params, limit) as string[];
    return docs.map((doc) => JSON.parse(doc) as Incident);
  }

  private async select(plan: ListPlan): Promise<Incident[]> {
    const docs = (await this.lists.all(plan, 'pluck')) as string[];
    return docs.map((doc) => JSON.parse(doc) as Incident);
  }

  /** Newest first, filtered and keyset-paged (sql-lists.ts); `where` may hold the caller's own condition. */
  private page(from: string, where: string[], params: unknown[], query: IncidentListQuery): { sql: string; params: unknown[] } {
    return select(`SELECT doc FROM ${from}`, incidentPage(where, params, query));
  }
}

/** Keyset pages over (event_time, position) in either direction; every filter has an index. */
class SqliteTimelineQueries implements TimelineQueries {
  private readonly selectByEventId;
  private readonly selectDoc;

  constructor(
    db: Database.Database,
    private readonly lists: ListReads,
    private readonly timeline: SqliteCollection,
  ) {
    this.selectByEventId = db.prepare(`SELECT ${TIMELINE_COLUMNS}, doc FROM timeline WHERE event_id = ? ORDER BY position LIMIT 1`).raw();
    this.selectDoc = db.prepare(`SELECT doc FROM timeline WHERE key = ?`).pluck();
  }

  async findByEventId(id: string): Promise<TimelineRow | undefined> {
    this.timeline.requireIndexes();
    const row = this.selectByEventId.get(id) as [...TimelineColumns, string] | undefined;
    // The document is the last column here.
    return row && toRow(row, row[6]);
  }

  /** A row's document, read when its entry is first needed: shown redacted, or tested by a filter (synchronous, as the row's getter is). */
  private readonly docAt = (position: bigint): string => {
    const doc = this.selectDoc.get(String(position)) as string | undefined;
    // Gone only if the read models were emptied since the page was read: answered like a read during a rebuild.
    if (doc === undefined) throw new ReadModelCatchingUpError('The timeline read model is being rebuilt');
    return doc;
  };

  async list(query: TimelineQuery): Promise<TimelineRow[]> {
    const rows = (await this.lists.all(() => this.page(query), 'raw', { inBackground: query.limit <= BACKGROUND_PAGE_ROWS })) as TimelineColumns[];
    return rows.map((row) => toRow(row, this.docAt));
  }

  private page(query: TimelineQuery): { sql: string; params: unknown[] } {
    this.timeline.requireIndexes();
    return select(`SELECT ${TIMELINE_COLUMNS} FROM timeline ${this.indexFor(query)}`, timelinePage(query));
  }

  /**
   * The index that serves a query best. Without statistics SQLite may prefer a
   * type or actor range that spans every incident over the one incident's index.
   */
  private indexFor(query: TimelineQuery): string {
    if (query.incidentId !== undefined) return this.timeline.indexedBy('by_incident');
    if (query.correlationKey !== undefined) return this.timeline.indexedBy('by_correlation');
    if (query.fingerprint !== undefined) return this.timeline.indexedBy('by_fingerprint');
    return '';
  }
}

/**
 * A page reads these columns (as arrays: `.raw()`) and not the document: an
 * event shown unredacted is answered with its stored view, and the document is
 * read (and parsed) only for one shown redacted.
 */
const TIMELINE_COLUMNS = 'position, incident_id, event_time, visibility, data_class, view';
type TimelineColumns = [number, string, string, string | null, string | null, string];

const toRow = ([position, incidentId, eventTime, visibility, dataClass, view]: TimelineColumns | [...TimelineColumns, string], doc: StoredDoc): TimelineRow =>
  timelineRow({ position: BigInt(position), incidentId, eventTime, visibility, dataClass, view }, doc);
