import mongoose, { type Connection, type Model, Schema } from 'mongoose';
import type { Incident } from '@im/incidents';
import type { DocumentWrite, ProjectionCommit, ReadStore, StoredDocument } from '../../read-store.port';
import type { IncidentListQuery, IncidentQueries } from '../../incidents/incident-queries.port';
import type { TimelineQueries, TimelineQuery, TimelineRow } from '../../timeline/timeline-queries.port';
import { type TimelineRecord, timelineRowOf } from '../../timeline/timeline.projection';
import type { NotificationPreferences } from '../../preferences/preferences.projection';
import type { Assignment } from '../../assignments/assignment.projection';
import type { ProjectionFault } from '../../projection-fault';

/** Positions as fixed-width hex: string order is numeric order, and 128-bit KurrentDB positions fit. */
export const hex = (position: bigint) => position.toString(16).padStart(32, '0');
export const fromHex = (position: string) => BigInt(`0x${position}`);

interface StoredRow {
  _id: string;
  position: string;
  doc: string;
  q: Record<string, unknown>;
}

/** The fields each collection is queried by, taken from its document (SQLite's generated columns). */
const QUERY_FIELDS: Record<string, (doc: never) => Record<string, unknown>> = {
  incidents: (d: Incident) => ({ status: d.status, severity: d.severity, createdAt: d.createdAt, visibility: d.visibility ?? null }),
  timeline: (r: TimelineRecord) => ({
    incidentId: r.incidentId,
    eventTime: r.eventTime,
    eventId: r.event.id,
    type: r.event.type,
    actor: r.event['im.actor'] ?? r.event.source,
    correlationKey: r.event['im.correlation_key'],
    fingerprint: r.event['im.fingerprint'],
  }),
  assignments: (a: Assignment) => ({ incidentId: a.incidentId, userId: a.userId }),
  preferences: () => ({}),
  probes: () => ({}),
};

const INDEXES: Record<string, Record<string, 1 | -1>[]> = {
  incidents: [{ 'q.createdAt': -1, _id: -1 }, { 'q.status': 1, 'q.createdAt': -1, _id: -1 }, { 'q.severity': 1, 'q.createdAt': -1, _id: -1 }],
  timeline: [
    { 'q.incidentId': 1, 'q.eventTime': 1, position: 1 },
    { 'q.correlationKey': 1, 'q.eventTime': 1, position: 1 },
    { 'q.fingerprint': 1, 'q.eventTime': 1, position: 1 },
    { 'q.type': 1, 'q.eventTime': 1, position: 1 },
    { 'q.actor': 1, 'q.eventTime': 1, position: 1 },
    { 'q.eventTime': 1, position: 1 },
    { 'q.eventId': 1, position: 1 },
  ],
  assignments: [{ 'q.userId': 1, 'q.incidentId': 1 }],
  preferences: [],
  probes: [],
};

const DUPLICATE_KEY = 11000;

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
  private readonly checkpoints: Model<{ _id: string; position: string }>;
  private readonly faults: Model<StoredFault>;
  readonly incidents: IncidentQueries;
  readonly timeline: TimelineQueries;
  readonly preferences: ReadStore['preferences'];

  private constructor(connection: Connection) {
    this.connection = connection;
    const rowSchema = (name: string) => {
      const schema = new Schema<StoredRow>(
        { _id: String, position: String, doc: String, q: Schema.Types.Mixed },
        { collection: `rm_${name}`, versionKey: false },
      );
      INDEXES[name].forEach((index) => schema.index(index));
      return schema;
    };
    this.models = Object.fromEntries(Object.keys(QUERY_FIELDS).map((name) => [name, connection.model<StoredRow>(name, rowSchema(name))]));
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
  }

  /** Connects and makes sure every index exists; an unreachable server fails here with a clear error. */
  static async connect(url: string, timeoutMs = 5000): Promise<MongoReadStore> {
    const connection = await mongoose.createConnection(url, { serverSelectionTimeoutMS: timeoutMs }).asPromise();
    const store = new MongoReadStore(connection);
    await Promise.all(Object.values(store.models).map((model) => model.syncIndexes()));
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
    const fields = QUERY_FIELDS[projection] as (doc: Doc) => Record<string, unknown>;
    const operations = writes.map((write) => {
      const older = { _id: write.key, position: { $lt: hex(write.position) } };
      return write.doc === undefined
        ? { deleteOne: { filter: older } }
        : {
            updateOne: {
              filter: older,
              update: { $set: { position: hex(write.position), doc: JSON.stringify(write.doc), q: fields(write.doc) } },
              upsert: true,
            },
          };
    });
    if (operations.length) {
      try {
        await this.model(projection).bulkWrite(operations as never, { ordered: false });
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

  private async select(base: Record<string, unknown>, query: IncidentListQuery): Promise<Incident[]> {
    const filter: Record<string, unknown> = { ...base };
    if (query.statuses?.length) filter['q.status'] = { $in: query.statuses };
    if (query.severities?.length) filter['q.severity'] = { $in: query.severities };
    // null: declared without a visibility (it also matches documents stored before q.visibility existed).
    if (query.visibleLevels) filter['q.visibility'] = { $in: [null, ...query.visibleLevels] };
    if (query.after) {
      filter.$or = [
        { 'q.createdAt': { $lt: query.after.createdAt } },
        { 'q.createdAt': query.after.createdAt, _id: { $lt: query.after.id } },
      ];
    }
    return parseIncidents(await this.incidents.find(filter).sort({ 'q.createdAt': -1, _id: -1 }).limit(query.limit).lean());
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
    const direction = query.order === 'asc' ? 1 : -1;
    if (query.after) {
      const beyond = query.order === 'asc' ? '$gt' : '$lt';
      const at = { eventTime: query.after.eventTime, position: hex(query.after.position) };
      filter.$and = [
        { $or: [{ 'q.eventTime': { [beyond]: at.eventTime } }, { 'q.eventTime': at.eventTime, position: { [beyond]: at.position } }] },
      ];
    }
    const rows = await this.timeline.find(filter).sort({ 'q.eventTime': direction, position: direction }).limit(query.limit).lean();
    return rows.map(toRow);
  }
}

const toRow = (row: StoredRow): TimelineRow => timelineRowOf(row.doc, fromHex(row.position));
