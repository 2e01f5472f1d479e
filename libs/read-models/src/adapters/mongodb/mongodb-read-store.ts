import mongoose, { type Connection, type Model, Schema } from 'mongoose';
import type { Incident, Status } from '@im/incidents';
import type { DocumentWrite, ProjectionCommit, StoredDocument } from '../../projection-store.port';
import type { ReadStore } from '../../read-store';
import type { IncidentListQuery, IncidentQueries } from '../../incidents/incident-queries.port';
import type { TimelineQueries, TimelineQuery, TimelineRow } from '../../timeline/timeline-queries.port';
import { storedTimelineRow } from '../../timeline/timeline.projection';
import type { NotificationPreferences } from '../../preferences/preferences.projection';
import type { PreferencesQueries } from '../../preferences/preferences-queries.port';
import type { IntegrationKeyRecord } from '../../integration-keys/integration-key.projection';
import type { IntegrationKeyQueries } from '../../integration-keys/integration-key-queries.port';
import type { IntegrationKeyHistoryEntry } from '../../integration-keys/integration-key-history.projection';
import type { IntegrationKeyHistoryQueries } from '../../integration-keys/integration-key-history-queries.port';
import type { WebhookRecord } from '../../webhooks/webhook.projection';
import type { WebhookQueries } from '../../webhooks/webhook-queries.port';
import { type DocumentSchema, indexColumn, type Projection, queryFieldValue, storedTexts } from '../../projection';
import type { ProjectionFault } from '../../projection-fault';
import { ALL_PROJECTIONS } from '../../read-models';

import { fromHex, hex } from './positions';
import { MongoOutboundStore } from './mongodb-outbound-store';
import { MongoNotificationStore } from './mongodb-notification-store';
import { MongoLeaseStore } from './mongodb-lease-store';
import { PROJECTIONS_LEASE } from '../../leases/lease-store.port';
import type { PushSubscriptionRecord } from '../../push-subscriptions/push-subscription.projection';
import type { PushSubscriptionQueries } from '../../push-subscriptions/push-subscription-queries.port';
import { type EscalationPolicyRecord, escalationPolicyProjection, type ScheduleRecord, scheduleProjection, type ServiceRecord, serviceProjection } from '../../oncall/oncall.projections';
import type { ConfigDocuments, OncallQueries } from '../../oncall/oncall-queries.port';
import { type HeartbeatRecord, heartbeatProjection } from '../../oncall/heartbeat.projection';
import type { IncidentMetricsQueries } from '../../metrics/incident-metrics-queries.port';
import { incidentMetricsProjection } from '../../metrics/incident-metrics.projection';
import type { IncidentFacts } from '@im/incidents';

export { fromHex, hex };

interface StoredRow {
  _id: string;
  position: string;
  doc: string;
  q: Record<string, unknown>;
  /** The declared texts (absent on documents written before their read model declared any). */
  t?: Record<string, string>;
}

/** Where a column an index names is kept: the key is `_id`, query fields sit under `q` beside the document. */
const pathOf = (column: string) => (column === 'key' ? '_id' : column === 'position' ? 'position' : `q.${column}`);

/** The indexes a projection declares, as MongoDB index specs. Sparse is SQLite's: MongoDB uses a partial index only for queries that imply its filter. */
export const indexSpecs = (schema: DocumentSchema | undefined): Record<string, 1 | -1>[] =>
  (schema?.indexes ?? []).map(({ on }) => Object.fromEntries(on.map(indexColumn).map(({ column, descending }) => [pathOf(column), descending ? -1 : 1])));

/** The query fields of a document, stored beside it as `q` (SQLite's generated columns). */
export const queryFields = (schema: DocumentSchema | undefined, doc: unknown): Record<string, unknown> =>
  Object.fromEntries(Object.entries(schema?.fields ?? {}).map(([name, field]) => [name, queryFieldValue(doc, field)]));

/**
 * The one keyset page of this store: documents strictly after `after` in the
 * order of the two fields (the second breaks ties), both in one direction.
 */
function keysetPage(filter: Record<string, unknown>, fields: [string, string], direction: 1 | -1, after?: [unknown, unknown]) {
  if (after) {
    const beyond = direction === 1 ? '$gt' : '$lt';
    const [first, second] = fields;
    filter.$and = [{ $or: [{ [first]: { [beyond]: after[0] } }, { [first]: after[0], [second]: { [beyond]: after[1] } }] }];
  }
  return { filter, sort: { [fields[0]]: direction, [fields[1]]: direction } };
}

/** A read model of an administrator's handful, found by id or listed oldest first (its `createdAt` field; ties by key). */
function byCreation<Doc>(model: Model<StoredRow>): ConfigDocuments<Doc> {
  return {
    findById: async (id) => {
      const row = await model.findById(id).lean();
      return row ? (JSON.parse(row.doc) as Doc) : undefined;
    },
    list: async () => {
      const rows = await model.find().sort({ 'q.createdAt': 1, _id: 1 }).lean();
      return rows.map((row) => JSON.parse(row.doc) as Doc);
    },
    positionOf: async (id) => {
      const row = await model.findById(id, { position: 1 }).lean();
      return row ? fromHex(row.position) : undefined;
    },
  };
}

/** MongoDB's error code for a unique index violation. */
const DUPLICATE_KEY = 11000;
/** How long start-up waits for a MongoDB server before it fails with a clear error (the driver's own default is 30 s). */
const SERVER_SELECTION_TIMEOUT_MS = 5000;

/** A projection fault as stored: `_id` is projection and hex position, so recording it again updates it. */
type StoredFault = Omit<ProjectionFault, 'position'> & { _id: string; position: string };

/**
 * An upsert that found a newer document collides on _id: that document already
 * reflects the event, so such failures are success. Anything else means some
 * documents may not be written and the checkpoint must not move: the driver
 * wraps network, NotWritablePrimary and write-concern failures in a
 * MongoBulkWriteError with no write errors, and reports a write-concern error
 * beside duplicate keys only in the result.
 */
function onlyStaleUpserts(error: unknown): boolean {
  if (!(error instanceof mongoose.mongo.MongoBulkWriteError)) return false;
  const writeErrors = [error.writeErrors].flat();
  return (
    writeErrors.length > 0 &&
    writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY) &&
    error.err === undefined &&
    error.result?.getWriteConcernError() === undefined
  );
}

/**
 * Read models in MongoDB. Writes are asynchronous to the log and idempotent:
 * each document keeps the position it applied and is only replaced by a later
 * one, so a replay after a crash (checkpoint behind the documents) changes nothing.
 */
export class MongoReadStore implements ReadStore {
  private readonly connection: Connection;
  private readonly models: Record<string, Model<StoredRow>>;
  private readonly schemas: Map<string, DocumentSchema | undefined>;
  private readonly checkpoints: Model<{ _id: string; position: string }>;
  private readonly faults: Model<StoredFault>;
  readonly incidents: IncidentQueries;
  readonly timeline: TimelineQueries;
  readonly preferences: PreferencesQueries;
  readonly integrationKeys: IntegrationKeyQueries;
  readonly integrationKeyHistory: IntegrationKeyHistoryQueries;
  readonly webhooks: WebhookQueries;
  readonly outbound: MongoOutboundStore;
  readonly pushSubscriptions: PushSubscriptionQueries;
  readonly notifications: MongoNotificationStore;
  readonly leases: MongoLeaseStore;
  readonly oncall: OncallQueries;
  readonly metrics: IncidentMetricsQueries;

  private constructor(connection: Connection, projections: Projection<unknown>[] = ALL_PROJECTIONS) {
    this.connection = connection;
    this.schemas = new Map(projections.map(({ name, schema }) => [name, schema]));
    const rowSchema = ({ name, schema: declared }: Projection<unknown>) => {
      const schema = new Schema<StoredRow>(
        { _id: String, position: String, doc: String, q: Schema.Types.Mixed, t: Schema.Types.Mixed },
        { collection: `rm_${name}`, versionKey: false },
      );
      indexSpecs(declared).forEach((index) => schema.index(index));
      return schema;
    };
    this.models = Object.fromEntries(projections.map((projection) => [projection.name, connection.model<StoredRow>(projection.name, rowSchema(projection))]));
    this.checkpoints = connection.model<{ _id: string; position: string }>(
      'checkpoints',
      new Schema<{ _id: string; position: string }>({ _id: String, position: String }, { collection: 'rm_checkpoints', versionKey: false }),
    );
    this.faults = connection.model<StoredFault>(
      'projection_faults',
      new Schema<StoredFault>(
        { _id: String, projection: String, position: String, eventId: String, streamId: String, error: String, firstSeen: String, lastSeen: String },
        { collection: 'rm_projection_faults', versionKey: false },
      ),
    );
    this.incidents = new MongoIncidentQueries(this.models.incidents, this.models.assignments);
    this.timeline = new MongoTimelineQueries(this.models.timeline);
    this.preferences = {
      findByUser: async (userId) => {
        const row = await this.models.preferences.findById(userId).lean();
        return row ? (JSON.parse(row.doc) as NotificationPreferences) : undefined;
      },
    };
    this.integrationKeys = byCreation<IntegrationKeyRecord>(this.models.integration_keys);
    this.integrationKeyHistory = {
      list: async () => {
        // Fixed-width hex positions: string order is log order.
        const rows = await this.models.integration_key_history.find().sort({ position: 1 }).lean();
        return rows.map((row) => JSON.parse(row.doc) as IntegrationKeyHistoryEntry);
      },
    };
    this.leases = new MongoLeaseStore(connection);
    this.outbound = new MongoOutboundStore(connection, this.leases);
    this.notifications = new MongoNotificationStore(connection, this.leases);
    this.pushSubscriptions = {
      listByUser: async (userId) => {
        const rows = await this.models.push_subscriptions.find({ 'q.userId': userId }).sort({ 'q.createdAt': 1, _id: 1 }).lean();
        return rows.map((row) => JSON.parse(row.doc) as PushSubscriptionRecord);
      },
    };
    this.webhooks = byCreation<WebhookRecord>(this.models.webhooks);
    this.oncall = {
      services: byCreation<ServiceRecord>(this.models[serviceProjection.name]),
      escalationPolicies: byCreation<EscalationPolicyRecord>(this.models[escalationPolicyProjection.name]),
      schedules: byCreation<ScheduleRecord>(this.models[scheduleProjection.name]),
      heartbeats: byCreation<HeartbeatRecord>(this.models[heartbeatProjection.name]),
    };
    const metrics = this.models[incidentMetricsProjection.name];
    this.metrics = {
      changedSince: async (after, limit) => {
        if (limit <= 0) return { changes: [], readTo: after };
        // A batch's documents land unordered and outside a transaction: only up to the checkpoint has every one of them
        // landed. Every document is answered as it is now, one the next batch already moved past the checkpoint too, but
        // the next read starts no later than the checkpoint, so a change of that batch still landing is not passed over.
        const landed = await this.checkpoint(incidentMetricsProjection.name);
        // Every fact is a query field: `q` alone is read, and no document is parsed.
        const rows = await metrics
          .find({ position: { $gt: hex(after) } })
          .sort({ position: 1 })
          .limit(limit)
          .select({ q: 1, position: 1 })
          .lean<{ _id: string; position: string; q: Omit<IncidentFacts, 'id'> }[]>();
        const changes = rows.map(({ _id, position, q }) => ({
          facts: {
            id: _id,
            declaredAt: q.declaredAt,
            severity: q.severity,
            serviceId: q.serviceId,
            visibility: q.visibility,
            outcome: q.outcome,
            acknowledgedAt: q.acknowledgedAt,
            resolvedAt: q.resolvedAt,
            escalated: q.escalated,
            alerts: q.alerts,
          },
          position: fromHex(position),
        }));
        const last = changes.length ? changes[changes.length - 1].position : after;
        return { changes, readTo: last < landed ? last : landed > after ? landed : after };
      },
    };
  }

  /** Connects and makes sure every index exists; an unreachable server fails here with a clear error. */
  static async connect(url: string, timeoutMs = SERVER_SELECTION_TIMEOUT_MS): Promise<MongoReadStore> {
    const connection = await mongoose.createConnection(url, { serverSelectionTimeoutMS: timeoutMs }).asPromise();
    const store = new MongoReadStore(connection);
    await Promise.all([...Object.values(store.models).map((model) => model.syncIndexes()), store.outbound.syncIndexes(), store.notifications.syncIndexes()]);
    return store;
  }

  private model(projection: string): Model<StoredRow> {
    const model = this.models[projection];
    if (!model) throw new Error(`Unknown projection ${projection}`);
    return model;
  }

  async checkpoint(projection: string): Promise<bigint> {
    const row = await this.checkpoints.findById(projection).lean();
    return row ? fromHex(row.position) : 0n;
  }

  async load<Doc>(projection: string, keys: string[]): Promise<Map<string, StoredDocument<Doc>>> {
    const rows = await this.model(projection).find({ _id: { $in: [...new Set(keys)] } }).lean();
    return new Map(rows.map((row) => [row._id, { doc: JSON.parse(row.doc) as Doc, position: fromHex(row.position) }]));
  }

  async commit<Doc>(projection: string, writes: DocumentWrite<Doc>[], position: bigint): Promise<void> {
    this.leases.refuseIfLost([PROJECTIONS_LEASE]);
    const model = this.model(projection);
    const schema = this.schemas.get(projection);
    const operations = writes.map((write) => {
      const older = { _id: write.key, position: { $lt: hex(write.position) } };
      return write.doc === undefined
        ? { deleteOne: { filter: older } }
        : {
            updateOne: {
              filter: older,
              update: { $set: { position: hex(write.position), doc: JSON.stringify(write.doc), q: queryFields(schema, write.doc), t: storedTexts(schema, write.doc) } },
              upsert: true,
            },
          };
    });
    if (operations.length) {
      try {
        await model.bulkWrite(operations as never, { ordered: false });
      } catch (error) {
        if (!onlyStaleUpserts(error)) throw error;
      }
    }
    await this.checkpoints.updateOne({ _id: projection }, { $max: { position: hex(position) } }, { upsert: true });
  }

  /**
   * Each projection's documents carry their own positions, so committing them one after another is safe.
   * Faults are stored before the checkpoint that passes them: a crash in between records them again.
   */
  async commitBatch(commits: ProjectionCommit[]): Promise<void> {
    this.leases.refuseIfLost([PROJECTIONS_LEASE]);
    for (const { projection, writes, position, faults = [] } of commits) {
      await this.recordFaults(faults);
      await this.commit(projection, writes, position);
    }
  }

  private async recordFaults(faults: ProjectionFault[]): Promise<void> {
    if (faults.length === 0) return;
    await this.faults.bulkWrite(
      faults.map(({ projection, position, eventId, streamId, error, firstSeen, lastSeen }) => ({
        updateOne: {
          filter: { _id: `${projection}@${hex(position)}` },
          update: { $set: { projection, position: hex(position), eventId, streamId, error }, $min: { firstSeen }, $max: { lastSeen } },
          upsert: true,
        },
      })),
      { ordered: true },
    );
  }

  async projectionFaults(): Promise<ProjectionFault[]> {
    const rows = await this.faults.find().sort({ projection: 1, position: 1 }).lean();
    return rows.map(({ _id, position, ...fault }) => ({ ...fault, position: fromHex(position) }));
  }

  async reset(projection: string): Promise<void> {
    await this.model(projection).deleteMany({});
    await this.checkpoints.deleteOne({ _id: projection });
    await this.faults.deleteMany({ projection });
  }

  /** Replayed writes are already idempotent upserts; nothing to relax. */
  bulkLoad<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}

const parseIncidents = (rows: { doc: string }[]) => rows.map((row) => JSON.parse(row.doc) as Incident);

class MongoIncidentQueries implements IncidentQueries {
  constructor(
    private readonly incidents: Model<StoredRow>,
    private readonly assignments: Model<StoredRow>,
  ) {}

  async findById(id: string): Promise<Incident | undefined> {
    const row = await this.incidents.findById(id).lean();
    return row ? (JSON.parse(row.doc) as Incident) : undefined;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.incidents.exists({ _id: id })) !== null;
  }

  async findMany(ids: string[]): Promise<Map<string, Incident>> {
    const found = parseIncidents(await this.incidents.find({ _id: { $in: [...new Set(ids)] } }).lean());
    return new Map(found.map((incident) => [incident.id, incident]));
  }

  list(query: IncidentListQuery): Promise<Incident[]> {
    return this.select({}, query);
  }

  async listForUser(userId: string, query: Omit<IncidentListQuery, 'after'>): Promise<Incident[]> {
    const held = await this.assignments.find({ 'q.userId': userId }).select({ q: 1 }).lean<{ q: { incidentId: string } }[]>();
    const ids = [...new Set(held.map((row) => row.q.incidentId))];
    return this.select({ _id: { $in: ids } }, query);
  }

  countOfService(serviceId: string, statuses: readonly Status[]): Promise<number> {
    return this.incidents.countDocuments({ 'q.serviceId': serviceId, 'q.status': { $in: [...statuses] } });
  }

  async listPaging({ limit, after }: { limit: number; after?: string }): Promise<Incident[]> {
    const filter: Record<string, unknown> = { 'q.pagingExhausted': false, 'q.status': 'open', 'q.escalationPolicyId': { $ne: null } };
    if (after !== undefined) filter._id = { $gt: after };
    return parseIncidents(await this.incidents.find(filter).sort({ _id: 1 }).limit(limit).lean());
  }

  private async select(base: Record<string, unknown>, query: IncidentListQuery): Promise<Incident[]> {
    const filter: Record<string, unknown> = { ...base };
    if (query.statuses?.length) filter['q.status'] = { $in: query.statuses };
    if (query.severities?.length) filter['q.severity'] = { $in: query.severities };
    // null: declared without a visibility (it also matches documents stored before q.visibility existed).
    if (query.visibleLevels) filter['q.visibility'] = { $in: [null, ...query.visibleLevels] };
    const page = keysetPage(filter, ['q.createdAt', '_id'], -1, query.after && [query.after.createdAt, query.after.id]);
    return parseIncidents(await this.incidents.find(page.filter).sort(page.sort).limit(query.limit).lean());
  }
}

class MongoTimelineQueries implements TimelineQueries {
  constructor(private readonly timeline: Model<StoredRow>) {}

  async findByEventId(id: string): Promise<TimelineRow | undefined> {
    const row = await this.timeline.findOne({ 'q.eventId': id }).sort({ position: 1 }).lean();
    return row ? toRow(row) : undefined;
  }

  async list(query: TimelineQuery): Promise<TimelineRow[]> {
    const filter: Record<string, unknown> = {};
    const equals = (field: string, value: string | undefined) => value !== undefined && (filter[`q.${field}`] = value);
    equals('incidentId', query.incidentId);
    equals('correlationKey', query.correlationKey);
    equals('fingerprint', query.fingerprint);
    equals('actor', query.actor);
    if (query.type && 'exact' in query.type) equals('type', query.type.exact);
    if (query.type && 'prefix' in query.type && query.type.prefix !== '') {
      filter['q.type'] = { $gte: query.type.prefix, $lt: `${query.type.prefix}\uffff` };
    }
    const time: Record<string, string> = {};
    if (query.from !== undefined) time.$gte = query.from;
    if (query.to !== undefined) time.$lte = query.to;
    if (Object.keys(time).length) filter['q.eventTime'] = time;
    const after = query.after && [query.after.eventTime, hex(query.after.position)] as [string, string];
    const page = keysetPage(filter, ['q.eventTime', 'position'], query.order === 'asc' ? 1 : -1, after);
    const rows = await this.timeline.find(page.filter).sort(page.sort).limit(query.limit).lean();
    return rows.map(toRow);
  }
}

/** A document written before the view was kept has neither it nor the policy's fields in `q`: it is parsed. */
const toRow = ({ doc, position, q, t }: StoredRow): TimelineRow =>
  storedTimelineRow(
    doc,
    fromHex(position),
    t?.view === undefined ? undefined : { incidentId: q.incidentId as string, eventTime: q.eventTime as string, visibility: q.visibility, dataClass: q.dataClass, view: t.view },
  );
