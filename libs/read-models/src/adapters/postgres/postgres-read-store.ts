import type { Pool } from 'pg';
import type { Incident, Status } from '@im/incidents';
import { applyMigrations, inTransaction, openPostgresPool, schemaStatus, type SchemaStatus } from '@im/postgres-runtime';
import type { BulkLoadOptions, DocumentWrite, ProjectionCommit, StoredDocument } from '../../projection-store.port';
import type { ReadStore } from '../../read-store';
import type { IncidentListQuery, IncidentQueries } from '../../incidents/incident-queries.port';
import type { TimelineQueries, TimelineQuery, TimelineRow } from '../../timeline/timeline-queries.port';
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
import type { PushSubscriptionRecord } from '../../push-subscriptions/push-subscription.projection';
import type { PushSubscriptionQueries } from '../../push-subscriptions/push-subscription-queries.port';
import { type EscalationPolicyRecord, escalationPolicyProjection, type ScheduleRecord, scheduleProjection, type ServiceRecord, serviceProjection } from '../../oncall/oncall.projections';
import type { ConfigDocuments, OncallQueries } from '../../oncall/oncall-queries.port';
import { type HeartbeatRecord, heartbeatProjection } from '../../oncall/heartbeat.projection';
import type { IncidentMetricsQueries } from '../../metrics/incident-metrics-queries.port';
import { incidentMetricsProjection } from '../../metrics/incident-metrics.projection';
import { type ChangedFactColumns, changedFacts, changedFactsOf, incidentPage, sqlChangesRead, type ListClause, type TimelineColumnValues, timelinePage, timelineRow } from '../sql-lists';
import { PostgresCollection, READ_STORE_COMPONENT, READ_STORE_MIGRATIONS, syncDeclarations, tableOf } from './postgres-schema';
import { arrayRowsOf, numbered, type Queryable, rowsOf, run, type Statement } from './postgres-sql';
import { PostgresOutboundStore } from './postgres-outbound-store';
import { PostgresNotificationStore } from './postgres-notification-store';
import { PostgresLeaseStore } from './postgres-lease-store';
import { PROJECTIONS_LEASE } from '../../leases/lease-store.port';

export interface PostgresReadStoreOptions {
  /** The read models it keeps (all of them unless a test says otherwise). */
  projections?: Projection<unknown>[];
  /** Connections at most in its pool. */
  max?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

const UPSERT_CHECKPOINTS = `INSERT INTO rm_checkpoints (projection, position) SELECT * FROM unnest($1::text[], $2::bigint[])
  ON CONFLICT (projection) DO UPDATE SET position = excluded.position`;
const UPSERT_FAULT = `INSERT INTO rm_projection_faults (projection, position, event_id, stream_id, error, first_seen, last_seen)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (projection, position) DO UPDATE SET error = excluded.error,
    first_seen = least(rm_projection_faults.first_seen, excluded.first_seen), last_seen = greatest(rm_projection_faults.last_seen, excluded.last_seen)`;

/** The documents a statement answers, in its order. */
const docsOf = async <Doc>(db: Queryable, sql: string, params: unknown[] = []) => (await rowsOf<{ doc: Doc }>(db, sql, params)).map((row) => row.doc);

/** A list's statement, its `?` placeholders numbered: its SELECT and FROM, then the shared clause (sql-lists.ts). */
const listOf = <Doc>(db: Queryable, head: string, { clause, params }: ListClause) => docsOf<Doc>(db, numbered(`${head} ${clause}`), params);

/**
 * Read models in PostgreSQL: one table per read model (`rm_<name>`), the
 * document as JSON with its query fields and texts in columns beside it,
 * derived from its declaration (postgres-schema.ts). Writes are transactions:
 * a commit's documents, faults and checkpoints together. Each process opens
 * its own pool; opening is safe while others open the same database.
 */
export class PostgresReadStore implements ReadStore {
  readonly incidents: IncidentQueries;
  readonly timeline: TimelineQueries;
  readonly preferences: PreferencesQueries;
  readonly integrationKeys: IntegrationKeyQueries;
  readonly integrationKeyHistory: IntegrationKeyHistoryQueries;
  readonly webhooks: WebhookQueries;
  readonly outbound: PostgresOutboundStore;
  readonly pushSubscriptions: PushSubscriptionQueries;
  readonly notifications: PostgresNotificationStore;
  readonly leases: PostgresLeaseStore;
  readonly oncall: OncallQueries;
  readonly metrics: IncidentMetricsQueries;
  private readonly collections: Map<string, PostgresCollection>;
  /** Bulk loads under way that need not survive a crash: their commits do not wait for the WAL's flush. */
  private unsafeLoads = 0;

  /** Connects, applies the read store's migrations and syncs each read model's table with its declaration. */
  static async connect(url: string, { projections = ALL_PROJECTIONS, max, applicationName = 'im read store' }: PostgresReadStoreOptions = {}): Promise<PostgresReadStore> {
    const pool = openPostgresPool(url, { max, applicationName });
    try {
      await applyMigrations(pool, READ_STORE_COMPONENT, READ_STORE_MIGRATIONS);
      const collections = projections.map((projection) => new PostgresCollection(projection));
      await syncDeclarations(pool, collections);
      return new PostgresReadStore(pool, collections);
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private constructor(
    private readonly pool: Pool,
    collections: PostgresCollection[],
  ) {
    this.collections = new Map(collections.map((collection) => [collection.name, collection]));
    this.incidents = new PostgresIncidentQueries(pool);
    this.timeline = new PostgresTimelineQueries(pool);
    this.preferences = {
      findByUser: async (userId) => (await docsOf<NotificationPreferences>(pool, 'SELECT doc FROM rm_preferences WHERE key = $1', [userId]))[0],
    };
    this.integrationKeys = byCreation<IntegrationKeyRecord>(pool, 'integration_keys');
    this.integrationKeyHistory = { list: () => docsOf<IntegrationKeyHistoryEntry>(pool, 'SELECT doc FROM rm_integration_key_history ORDER BY position') };
    this.leases = new PostgresLeaseStore(pool);
    this.outbound = new PostgresOutboundStore(pool, this.leases);
    this.notifications = new PostgresNotificationStore(pool, this.leases);
    this.pushSubscriptions = {
      listByUser: (userId) => docsOf<PushSubscriptionRecord>(pool, 'SELECT doc FROM rm_push_subscriptions WHERE user_id = $1 ORDER BY created_at, key', [userId]),
    };
    this.webhooks = byCreation<WebhookRecord>(pool, 'webhooks');
    this.oncall = {
      services: byCreation<ServiceRecord>(pool, serviceProjection.name),
      escalationPolicies: byCreation<EscalationPolicyRecord>(pool, escalationPolicyProjection.name),
      schedules: byCreation<ScheduleRecord>(pool, scheduleProjection.name),
      heartbeats: byCreation<HeartbeatRecord>(pool, heartbeatProjection.name),
    };
    this.metrics = {
      changedSince: async (after, limit) => {
        const { sql, params } = changedFacts(tableOf(incidentMetricsProjection.name), after, limit);
        return sqlChangesRead(after, (await arrayRowsOf<ChangedFactColumns>(pool, numbered(sql), params)).map(changedFactsOf));
      },
    };
  }

  async checkpoint(projection: string): Promise<bigint> {
    const [row] = await rowsOf<{ position: bigint }>(this.pool, 'SELECT position FROM rm_checkpoints WHERE projection = $1', [projection]);
    return row?.position ?? 0n;
  }

  async load<Doc>(projection: string, keys: string[]): Promise<Map<string, StoredDocument<Doc>>> {
    const rows = await rowsOf<{ key: string; position: bigint; doc: Doc }>(
      this.pool,
      `SELECT key, position, doc FROM ${this.collection(projection).table} WHERE key = ANY($1::text[])`,
      [[...new Set(keys)]],
    );
    return new Map(rows.map(({ key, position, doc }) => [key, { doc, position }]));
  }

  async commit<Doc>(projection: string, writes: DocumentWrite<Doc>[], position: bigint): Promise<void> {
    return this.commitBatch([{ projection, writes, position }]);
  }

  /**
   * One transaction: every commit's documents and faults, then their checkpoints (a projection committed twice keeps its last);
   * fenced by the lease `projections` (bulk loads commit here too).
   */
  async commitBatch(commits: ProjectionCommit[]): Promise<void> {
    const statements: Statement[] = commits.flatMap(({ projection, writes, faults = [] }) => [
      ...this.collection(projection).writes(writes),
      ...faults.map(({ projection, position, eventId, streamId, error, firstSeen, lastSeen }): Statement => [
        UPSERT_FAULT,
        [projection, position, eventId, streamId, error, firstSeen, lastSeen],
      ]),
    ]);
    const checkpoints = new Map(commits.map(({ projection, position }) => [projection, position]));
    statements.push([UPSERT_CHECKPOINTS, [[...checkpoints.keys()], [...checkpoints.values()]]]);
    const unsafe = this.unsafeLoads > 0;
    await this.leases.fenced([PROJECTIONS_LEASE], async (client) => {
      if (unsafe) await client.query('SET LOCAL synchronous_commit = off');
      for (const statement of statements) await run(client, statement);
    });
  }

  async reset(projection: string): Promise<void> {
    const { table } = this.collection(projection);
    await inTransaction(this.pool, async (client) => {
      await client.query(`TRUNCATE ${table}`);
      await run(client, ['DELETE FROM rm_checkpoints WHERE projection = $1', [projection]]);
      await run(client, ['DELETE FROM rm_projection_faults WHERE projection = $1', [projection]]);
    });
  }

  projectionFaults(): Promise<ProjectionFault[]> {
    return rowsOf<ProjectionFault>(
      this.pool,
      `SELECT projection, position, event_id AS "eventId", stream_id AS "streamId", error, first_seen AS "firstSeen", last_seen AS "lastSeen"
       FROM rm_projection_faults ORDER BY projection, position`,
    );
  }

  /**
   * Defers no index: other processes read the same tables meanwhile. A load
   * that need not be crash safe commits without waiting for the WAL's flush:
   * a crash loses its last commits, documents and checkpoint together, and
   * the runner folds them again.
   */
  async bulkLoad<T>(work: () => Promise<T>, { crashSafe = false }: BulkLoadOptions = {}): Promise<T> {
    if (crashSafe) return work();
    this.unsafeLoads++;
    try {
      return await work();
    } finally {
      this.unsafeLoads--;
    }
  }

  /** The server, and the read store's migrations it has recorded (validate's `database` checks). */
  schemaStatus(): Promise<SchemaStatus> {
    return schemaStatus(this.pool, READ_STORE_COMPONENT, READ_STORE_MIGRATIONS);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private collection(projection: string): PostgresCollection {
    const collection = this.collections.get(projection);
    if (!collection) throw new Error(`Unknown projection ${projection}`);
    return collection;
  }
}

/** A read model of an administrator's handful, found by id or listed oldest first (its `created_at` column; ties by key). */
function byCreation<Doc>(pool: Pool, projection: string): ConfigDocuments<Doc> {
  const table = tableOf(projection);
  return {
    findById: async (id) => (await docsOf<Doc>(pool, `SELECT doc FROM ${table} WHERE key = $1`, [id]))[0],
    list: () => docsOf<Doc>(pool, `SELECT doc FROM ${table} ORDER BY created_at, key`),
    positionOf: async (id) => (await rowsOf<{ position: bigint }>(pool, `SELECT position FROM ${table} WHERE key = $1`, [id]))[0]?.position,
  };
}

class PostgresIncidentQueries implements IncidentQueries {
  constructor(private readonly pool: Pool) {}

  async findById(id: string): Promise<Incident | undefined> {
    return (await docsOf<Incident>(this.pool, 'SELECT doc FROM rm_incidents WHERE key = $1', [id]))[0];
  }

  async exists(id: string): Promise<boolean> {
    return (await rowsOf(this.pool, 'SELECT 1 FROM rm_incidents WHERE key = $1', [id])).length > 0;
  }

  async findMany(ids: string[]): Promise<Map<string, Incident>> {
    const found = await docsOf<Incident>(this.pool, 'SELECT doc FROM rm_incidents WHERE key = ANY($1::text[])', [[...new Set(ids)]]);
    return new Map(found.map((incident) => [incident.id, incident]));
  }

  list(query: IncidentListQuery): Promise<Incident[]> {
    return listOf<Incident>(this.pool, 'SELECT doc FROM rm_incidents', incidentPage([], [], query));
  }

  /** The planner, with the tables' statistics, chooses between walking the newest-first index and sorting the user's incidents. */
  listForUser(userId: string, query: Omit<IncidentListQuery, 'after'>): Promise<Incident[]> {
    return listOf<Incident>(this.pool, 'SELECT doc FROM rm_incidents', incidentPage(['key IN (SELECT incident_id FROM rm_assignments WHERE user_id = ?)'], [userId], query));
  }

  async countOfService(serviceId: string, statuses: readonly Status[]): Promise<number> {
    const [{ count }] = await rowsOf<{ count: number }>(
      this.pool,
      'SELECT count(*)::integer AS count FROM rm_incidents WHERE service_id = $1 AND status = ANY($2::text[])',
      [serviceId, statuses],
    );
    return count;
  }

  listPaging({ limit, after }: { limit: number; after?: string }): Promise<Incident[]> {
    return docsOf<Incident>(
      this.pool,
      `SELECT doc FROM rm_incidents WHERE paging_exhausted = 0 AND status = 'open' AND escalation_policy_id IS NOT NULL AND ($1::text IS NULL OR key > $1)
       ORDER BY key LIMIT $2`,
      [after ?? null, limit],
    );
  }
}

/**
 * A page reads the policy's inputs and the unredacted view from their
 * columns, and the document as text: parsed only for an event shown redacted
 * (a row's entry is read synchronously, so the document comes with the page).
 */
const TIMELINE_COLUMNS = `position, incident_id AS "incidentId", event_time AS "eventTime", visibility, data_class AS "dataClass", view, doc::text AS doc`;

type TimelineColumns = TimelineColumnValues & { doc: string };

const toRow = ({ doc, ...columns }: TimelineColumns): TimelineRow => timelineRow(columns, doc);

class PostgresTimelineQueries implements TimelineQueries {
  constructor(private readonly pool: Pool) {}

  async findByEventId(id: string): Promise<TimelineRow | undefined> {
    const [row] = await rowsOf<TimelineColumns>(this.pool, `SELECT ${TIMELINE_COLUMNS} FROM rm_timeline WHERE event_id = $1 ORDER BY position LIMIT 1`, [id]);
    return row && toRow(row);
  }

  async list(query: TimelineQuery): Promise<TimelineRow[]> {
    const { clause, params } = timelinePage(query);
    return (await rowsOf<TimelineColumns>(this.pool, numbered(`SELECT ${TIMELINE_COLUMNS} FROM rm_timeline ${clause}`), params)).map(toRow);
  }
}
