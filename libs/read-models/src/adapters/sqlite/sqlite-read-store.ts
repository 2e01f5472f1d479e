import Database from 'better-sqlite3';
import type { Incident } from '@im/incidents';
import type { DocumentWrite, ProjectionCommit, ReadStore, StoredDocument } from '../../read-store.port';
import type { IncidentListQuery, IncidentQueries } from '../../incidents/incident-queries.port';
import { incidentProjection } from '../../incidents/incident.projection';
import type { TimelineQueries, TimelineQuery, TimelineRow } from '../../timeline/timeline-queries.port';
import { timelineProjection, timelineRowOf } from '../../timeline/timeline.projection';
import { assignmentProjection } from '../../assignments/assignment.projection';
import { type NotificationPreferences, preferencesProjection } from '../../preferences/preferences.projection';
import { probeProjection } from '../../probes/probe.projection';
import type { ProjectionFault } from '../../projection-fault';

/**
 * Each projection's collection is a table of JSON documents. Columns the
 * queries filter or sort on are generated from the document, so a
 * projection's fold stays the only code that shapes the data. Timeline
 * and incident columns are STORED: a filter or sort that touches many rows then reads no JSON.
 */
const COLLECTIONS: Record<string, string> = {
  [incidentProjection.name]: `
    CREATE TABLE IF NOT EXISTS incidents (
      key        TEXT PRIMARY KEY,
      position   INTEGER NOT NULL,
      doc        TEXT NOT NULL,
      status     TEXT GENERATED ALWAYS AS (json_extract(doc, '$.status')) STORED,
      severity   TEXT GENERATED ALWAYS AS (json_extract(doc, '$.severity')) STORED,
      created_at TEXT GENERATED ALWAYS AS (json_extract(doc, '$.createdAt')) STORED
    );
    CREATE INDEX IF NOT EXISTS incidents_by_created ON incidents (created_at DESC, key DESC);
    CREATE INDEX IF NOT EXISTS incidents_by_status ON incidents (status, created_at DESC, key DESC);
    CREATE INDEX IF NOT EXISTS incidents_by_severity ON incidents (severity, created_at DESC, key DESC);
  `,
  [timelineProjection.name]: `
    CREATE TABLE IF NOT EXISTS timeline (
      key             TEXT PRIMARY KEY,
      position        INTEGER NOT NULL,
      doc             TEXT NOT NULL,
      incident_id     TEXT GENERATED ALWAYS AS (json_extract(doc, '$.incidentId')) STORED,
      event_time      TEXT GENERATED ALWAYS AS (json_extract(doc, '$.eventTime')) STORED,
      event_id        TEXT GENERATED ALWAYS AS (json_extract(doc, '$.event.id')) STORED,
      type            TEXT GENERATED ALWAYS AS (json_extract(doc, '$.event.type')) STORED,
      actor           TEXT GENERATED ALWAYS AS (coalesce(json_extract(doc, '$.event."im.actor"'), json_extract(doc, '$.event.source'))) STORED,
      correlation_key TEXT GENERATED ALWAYS AS (json_extract(doc, '$.event."im.correlation_key"')) STORED,
      fingerprint     TEXT GENERATED ALWAYS AS (json_extract(doc, '$.event."im.fingerprint"')) STORED
    );
    CREATE INDEX IF NOT EXISTS timeline_by_incident ON timeline (incident_id, event_time, position);
    CREATE INDEX IF NOT EXISTS timeline_by_correlation ON timeline (correlation_key, event_time, position) WHERE correlation_key IS NOT NULL;
    CREATE INDEX IF NOT EXISTS timeline_by_fingerprint ON timeline (fingerprint, event_time, position) WHERE fingerprint IS NOT NULL;
    CREATE INDEX IF NOT EXISTS timeline_by_type ON timeline (type, event_time, position);
    CREATE INDEX IF NOT EXISTS timeline_by_actor ON timeline (actor, event_time, position);
    CREATE INDEX IF NOT EXISTS timeline_by_time ON timeline (event_time, position);
    CREATE INDEX IF NOT EXISTS timeline_by_event_id ON timeline (event_id, position);
  `,
  [assignmentProjection.name]: `
    CREATE TABLE IF NOT EXISTS assignments (
      key         TEXT PRIMARY KEY,
      position    INTEGER NOT NULL,
      doc         TEXT NOT NULL,
      incident_id TEXT GENERATED ALWAYS AS (json_extract(doc, '$.incidentId')) STORED,
      user_id     TEXT GENERATED ALWAYS AS (json_extract(doc, '$.userId')) STORED
    );
    CREATE INDEX IF NOT EXISTS assignments_by_user ON assignments (user_id, incident_id);
  `,
  [preferencesProjection.name]: `
    CREATE TABLE IF NOT EXISTS preferences (key TEXT PRIMARY KEY, position INTEGER NOT NULL, doc TEXT NOT NULL);
  `,
  [probeProjection.name]: `
    CREATE TABLE IF NOT EXISTS probes (key TEXT PRIMARY KEY, position INTEGER NOT NULL, doc TEXT NOT NULL);
  `,
};

const MAX_KEYS_PER_QUERY = 500;

/** Prepared statements by SQL text: preparing is a large share of a small query's cost. */
class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

export class SqliteReadStore implements ReadStore {
  private readonly db: Database.Database;
  private readonly sql: StatementCache;
  private readonly selectCheckpoint;
  private readonly upsertCheckpoint;
  private readonly upsertFault;
  readonly incidents: IncidentQueries;
  readonly timeline: TimelineQueries;
  readonly preferences: ReadStore['preferences'];

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // A read model can always be rebuilt from the log, so a lost tail after a power cut is replayed, not lost.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS projection_faults (
      projection TEXT NOT NULL, position INTEGER NOT NULL, event_id TEXT NOT NULL, stream_id TEXT NOT NULL,
      error TEXT NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
      PRIMARY KEY (projection, position)
    );`);
    Object.values(COLLECTIONS).forEach((ddl) => this.db.exec(ddl));
    this.selectCheckpoint = this.db
      .prepare(`SELECT position FROM checkpoints WHERE projection = ?`)
      .pluck();
    this.upsertCheckpoint = this.db.prepare(
      `INSERT INTO checkpoints (projection, position) VALUES (?, ?)
       ON CONFLICT (projection) DO UPDATE SET position = excluded.position`,
    );
    this.upsertFault = this.db.prepare(
      `INSERT INTO projection_faults (projection, position, event_id, stream_id, error, first_seen, last_seen)
       VALUES (@projection, @position, @eventId, @streamId, @error, @firstSeen, @lastSeen)
       ON CONFLICT (projection, position) DO UPDATE SET error = excluded.error,
         first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`,
    );
    this.sql = new StatementCache(this.db);
    this.incidents = new SqliteIncidentQueries(this.db, this.sql);
    this.timeline = new SqliteTimelineQueries(this.db, this.sql);
    const selectPreferences = this.db.prepare(`SELECT doc FROM preferences WHERE key = ?`).pluck();
    this.preferences = {
      findByUser: async (userId) => {
        const doc = selectPreferences.get(userId) as string | undefined;
        return doc === undefined ? undefined : (JSON.parse(doc) as NotificationPreferences);
      },
    };
  }

  async checkpoint(projection: string): Promise<bigint> {
    const position = this.selectCheckpoint.get(projection) as number | undefined;
    return BigInt(position ?? 0);
  }

  async load<Doc>(projection: string, keys: string[]): Promise<Map<string, StoredDocument<Doc>>> {
    const table = this.table(projection);
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

  async commitBatch(commits: ProjectionCommit[]): Promise<void> {
    this.db.transaction(() => commits.forEach((commit) => this.write(commit)))();
  }

  private write({ projection, writes, position, faults = [] }: ProjectionCommit): void {
    const table = this.table(projection);
    const upsert = this.sql.get(
      `INSERT INTO ${table} (key, position, doc) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET position = excluded.position, doc = excluded.doc`,
    );
    const remove = this.sql.get(`DELETE FROM ${table} WHERE key = ?`);
    for (const write of writes) {
      if (write.doc === undefined) remove.run(write.key);
      else upsert.run(write.key, Number(write.position), JSON.stringify(write.doc));
    }
    for (const fault of faults) this.upsertFault.run({ ...fault, position: Number(fault.position) });
    this.upsertCheckpoint.run(projection, Number(position));
  }

  async reset(projection: string): Promise<void> {
    const table = this.table(projection);
    this.db.transaction(() => {
      this.db.prepare(`DELETE FROM ${table}`).run();
      this.db.prepare(`DELETE FROM checkpoints WHERE projection = ?`).run(projection);
      this.db.prepare(`DELETE FROM projection_faults WHERE projection = ?`).run(projection);
    })();
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
  async bulkLoad<T>(work: () => Promise<T>): Promise<T> {
    const indexes = this.db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
      .all() as { name: string; sql: string }[];
    indexes.forEach(({ name }) => this.db.exec(`DROP INDEX ${name}`));
    this.db.pragma('synchronous = OFF');
    this.db.pragma(`cache_size = ${-256 * 1024}`);
    try {
      return await work();
    } finally {
      indexes.forEach(({ sql }) => this.db.exec(sql));
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('cache_size = -2000');
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private table(projection: string): string {
    if (!(projection in COLLECTIONS)) throw new Error(`Unknown projection ${projection}`);
    return projection;
  }
}

/** Above this many assignments, walking the newest-first index beats sorting them all. */
const SORT_THRESHOLD = 500;

class SqliteIncidentQueries implements IncidentQueries {
  private readonly selectById;
  private readonly selectExists;
  private readonly countAssignments;

  constructor(
    db: Database.Database,
    private readonly sql: StatementCache,
  ) {
    this.selectById = db.prepare(`SELECT doc FROM incidents WHERE key = ?`).pluck();
    this.selectExists = db.prepare(`SELECT 1 FROM incidents WHERE key = ?`).pluck();
    // Counting stops at the threshold: all that matters is whether it is exceeded.
    this.countAssignments = db
      .prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM assignments WHERE user_id = ? LIMIT ${SORT_THRESHOLD + 1})`)
      .pluck();
  }

  async exists(id: string): Promise<boolean> {
    return this.selectExists.get(id) !== undefined;
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
      const docs = this.sql.get(`SELECT doc FROM incidents WHERE key IN (${chunk.map(() => '?').join(',')})`).pluck().all(...chunk) as string[];
      docs.forEach((doc) => {
        const incident = JSON.parse(doc) as Incident;
        found.set(incident.id, incident);
      });
    }
    return found;
  }

  async list(query: IncidentListQuery): Promise<Incident[]> {
    return this.select('incidents', query);
  }

  async listForUser(userId: string, query: Omit<IncidentListQuery, 'after'>): Promise<Incident[]> {
    // Few incidents: fetch them and sort. Many: walk the newest-first index and stop after `limit` matches.
    const held = this.countAssignments.get(userId) as number;
    const from =
      held > SORT_THRESHOLD
        ? `incidents INDEXED BY incidents_by_created WHERE EXISTS (SELECT 1 FROM assignments WHERE user_id = ? AND incident_id = incidents.key)`
        : `incidents WHERE key IN (SELECT incident_id FROM assignments WHERE user_id = ?)`;
    return this.select(from, query, [userId]);
  }

  /** Newest first, filtered by status and severity, keyset-paged; `from` may carry its own condition. */
  private async select(from: string, query: IncidentListQuery, fromParams: unknown[] = []): Promise<Incident[]> {
    const where: string[] = [];
    const params: unknown[] = [...fromParams];
    if (query.statuses?.length) {
      where.push(`status IN (${query.statuses.map(() => '?').join(',')})`);
      params.push(...query.statuses);
    }
    if (query.severities?.length) {
      where.push(`severity IN (${query.severities.map(() => '?').join(',')})`);
      params.push(...query.severities);
    }
    if (query.after) {
      where.push(`(created_at, key) < (?, ?)`);
      params.push(query.after.createdAt, query.after.id);
    }
    if (query.visibleLevels) {
      const levels = query.visibleLevels.map(() => '?').join(',');
      where.push(`(json_extract(doc, '$.visibility') IS NULL OR json_extract(doc, '$.visibility') IN (${levels}))`);
      params.push(...query.visibleLevels);
    }
    const joiner = from.includes(' WHERE ') ? ' AND ' : ' WHERE ';
    const sql = `SELECT doc FROM ${from}${where.length ? `${joiner}${where.join(' AND ')}` : ''}
                 ORDER BY created_at DESC, key DESC LIMIT ?`;
    const docs = this.sql.get(sql).pluck().all(...params, query.limit) as string[];
    return docs.map((doc) => JSON.parse(doc) as Incident);
  }
}

/** Keyset pages over (event_time, position) in either direction; every filter has an index. */
class SqliteTimelineQueries implements TimelineQueries {
  private readonly selectByEventId;

  constructor(
    db: Database.Database,
    private readonly sql: StatementCache,
  ) {
    this.selectByEventId = db.prepare(
      `SELECT doc, position FROM timeline WHERE event_id = ? ORDER BY position LIMIT 1`,
    );
  }

  async findByEventId(id: string): Promise<TimelineRow | undefined> {
    const row = this.selectByEventId.get(id) as { doc: string; position: number } | undefined;
    return row && toRow(row);
  }

  async list(query: TimelineQuery): Promise<TimelineRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const equals = (column: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    equals('incident_id', query.incidentId);
    equals('correlation_key', query.correlationKey);
    equals('fingerprint', query.fingerprint);
    equals('actor', query.actor);
    if (query.type && 'exact' in query.type) equals('type', query.type.exact);
    if (query.type && 'prefix' in query.type && query.type.prefix !== '') {
      // A range on the type index; U+FFFF sorts after any character a type may hold.
      where.push(`type >= ? AND type < ?`);
      params.push(query.type.prefix, `${query.type.prefix}\uffff`);
    }
    if (query.from !== undefined) {
      where.push(`event_time >= ?`);
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push(`event_time <= ?`);
      params.push(query.to);
    }
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    if (query.after) {
      where.push(`(event_time, position) ${query.order === 'asc' ? '>' : '<'} (?, ?)`);
      params.push(query.after.eventTime, Number(query.after.position));
    }
    const sql = `SELECT doc, position FROM timeline ${indexFor(query)} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY event_time ${direction}, position ${direction} LIMIT ?`;
    const rows = this.sql.get(sql).all(...params, query.limit) as { doc: string; position: number }[];
    return rows.map(toRow);
  }
}

/**
 * The index that serves a query best. Without statistics SQLite may prefer a
 * type or actor range that spans every incident over the one incident's index.
 */
function indexFor(query: TimelineQuery): string {
  if (query.incidentId !== undefined) return 'INDEXED BY timeline_by_incident';
  if (query.correlationKey !== undefined) return 'INDEXED BY timeline_by_correlation';
  if (query.fingerprint !== undefined) return 'INDEXED BY timeline_by_fingerprint';
  return '';
}

const toRow = (row: { doc: string; position: number }): TimelineRow => timelineRowOf(row.doc, BigInt(row.position));
