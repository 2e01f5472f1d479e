import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '@im/event-store';
import { unredactedViewJson } from '../../timeline/timeline-event.view';
import { timelineProjection, toTimelineEntry, toTimelineRecord } from '../../timeline/timeline.projection';
import { SqliteReadStore } from './sqlite-read-store';

/** The read models' tables as the version before declared schemas wrote them (kept verbatim: files like this exist). */
const PREVIOUS_VERSION = `
  CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS projection_faults (
      projection TEXT NOT NULL, position INTEGER NOT NULL, event_id TEXT NOT NULL, stream_id TEXT NOT NULL,
      error TEXT NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
      PRIMARY KEY (projection, position)
    );
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
  CREATE TABLE IF NOT EXISTS assignments (
    key         TEXT PRIMARY KEY,
    position    INTEGER NOT NULL,
    doc         TEXT NOT NULL,
    incident_id TEXT GENERATED ALWAYS AS (json_extract(doc, '$.incidentId')) STORED,
    user_id     TEXT GENERATED ALWAYS AS (json_extract(doc, '$.userId')) STORED
  );
  CREATE INDEX IF NOT EXISTS assignments_by_user ON assignments (user_id, incident_id);
  CREATE TABLE IF NOT EXISTS preferences (key TEXT PRIMARY KEY, position INTEGER NOT NULL, doc TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS probes (key TEXT PRIMARY KEY, position INTEGER NOT NULL, doc TEXT NOT NULL);
`;

const incident = (n: number, visibility?: string) => ({
  id: `INC-0000000${n}`,
  title: `incident ${n}`,
  severity: 'SEV-2',
  status: 'open',
  createdAt: `2026-11-22T00:00:0${n}.000Z`,
  updatedAt: `2026-11-22T00:00:0${n}.000Z`,
  ...(visibility ? { visibility } : {}),
});

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'im-read-schema-'));
  file = join(dir, 'read-models.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const schemaOf = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name`).all() as { type: string; name: string; sql: string }[];
  } finally {
    db.close();
  }
};

describe('SqliteReadStore opening a file written by the previous version', () => {
  beforeEach(() => {
    const db = new Database(file);
    db.exec(PREVIOUS_VERSION);
    const insert = db.prepare(`INSERT INTO incidents (key, position, doc) VALUES (?, ?, ?)`);
    [incident(1), incident(2, 'restricted'), incident(3, 'public')].forEach((doc, i) => insert.run(doc.id, i + 1, JSON.stringify(doc)));
    db.prepare(`INSERT INTO checkpoints VALUES ('incidents', 3)`).run();
    db.prepare(`INSERT INTO timeline (key, position, doc) VALUES ('1', 1, ?)`).run(
      JSON.stringify({ incidentId: 'INC-00000001', eventTime: '2026-11-22T00:00:01.000Z', createdAt: '2026-11-22T00:00:01.000Z', event: { specversion: '1.0', id: 'evt-1', source: 'im://test', type: 'im.incident.declare' } }),
    );
    db.close();
  });

  it('rebuilds in place the table whose query fields changed, keeping its documents and checkpoint; empties one without its declared texts for the runner to fold again; serves', async () => {
    const db = new Database(file);
    db.prepare(`INSERT INTO checkpoints VALUES ('timeline', 1)`).run();
    db.prepare(`INSERT INTO projection_faults VALUES ('timeline', 1, 'evt-0', 'incident-INC-00000001', 'bad time', 't', 't')`).run();
    db.close();
    const before = schemaOf(file);
    const store = new SqliteReadStore(file);
    try {
      expect(await store.checkpoint('incidents')).toBe(3n);
      expect((await store.incidents.list({ limit: 10, visibleLevels: ['public', 'internal'] })).map((i) => i.id)).toEqual(['INC-00000003', 'INC-00000001']);
      expect(await store.incidents.findById('INC-00000002')).toMatchObject({ visibility: 'restricted' });
      // The timeline keeps each event's view, which only the fold computes: its table starts again from the log.
      expect(await store.checkpoint('timeline')).toBe(0n);
      expect(await store.projectionFaults()).toEqual([]);
      expect(await store.timeline.findByEventId('evt-1')).toBeUndefined();
    } finally {
      await store.close();
    }
    const after = schemaOf(file);
    // The incidents table gained its visibility column, the timeline its view and the policy's columns; their indexes are back, the other tables untouched, read models new since then created.
    expect(after.find((o) => o.name === 'incidents')?.sql).toContain('visibility TEXT GENERATED ALWAYS AS');
    expect(after.find((o) => o.name === 'timeline')?.sql).toContain('view TEXT NOT NULL');
    const changed = new Set(['incidents', 'timeline']);
    const existed = new Set(before.map((o) => o.name));
    expect(after.filter((o) => !changed.has(o.name) && existed.has(o.name))).toEqual(before.filter((o) => !changed.has(o.name)));
    expect(after.filter((o) => !existed.has(o.name)).map((o) => o.name)).toEqual(['escalation_policies', 'escalation_policies_by_created', 'heartbeats', 'heartbeats_by_created', 'incident_metrics', 'incident_metrics_by_change', 'incidents_by_paging', 'incidents_by_service', 'integration_key_history', 'integration_key_history_by_position', 'integration_keys', 'integration_keys_by_created', 'leases', 'notifications', 'notifications_by_responder', 'notifications_due', 'oncall_services', 'oncall_services_by_created', 'outbound_attempts', 'outbound_attempts_by_position', 'outbound_attempts_by_target', 'outbound_checkpoints', 'outbound_resends', 'push_subscriptions', 'push_subscriptions_by_user', 'schedules', 'schedules_by_created', 'webhooks', 'webhooks_by_created']);
  });

  it('leaves the file as it is on the next open', async () => {
    await new SqliteReadStore(file).close();
    const migrated = schemaOf(file);
    await new SqliteReadStore(file).close();
    expect(schemaOf(file)).toEqual(migrated);
  });
});

describe('SqliteReadStore texts', () => {
  it('keeps a document\'s texts when its table is rebuilt in place for other query fields', async () => {
    const recorded = {
      streamId: 'incident-INC-00000001',
      revision: 0n,
      position: 1n,
      recordedAt: '2026-11-22T00:00:02.000Z',
      event: { specversion: '1.0', id: 'evt-1', source: 'im://test', type: 'im.incident.note', time: '2026-11-22T00:00:01Z', 'im.visibility': 'restricted', 'im.data_class': ['pii'], data: { content: 'x' } },
    } as RecordedEvent;
    const first = new SqliteReadStore(file);
    await first.commit(timelineProjection.name, [{ key: '1', position: 1n, doc: toTimelineRecord(recorded) }], 1n);
    await first.close();
    const db = new Database(file);
    db.exec(`ALTER TABLE timeline DROP COLUMN data_class`);
    db.close();
    const store = new SqliteReadStore(file);
    try {
      expect(await store.checkpoint('timeline')).toBe(1n);
      const [row] = await store.timeline.list({ incidentId: 'INC-00000001', order: 'asc', limit: 10 });
      expect(row).toMatchObject({ incidentId: 'INC-00000001', visibility: 'restricted', dataClass: ['pii'] });
      expect(row.viewJson).toBe(unredactedViewJson(toTimelineEntry(toTimelineRecord(recorded))));
    } finally {
      await store.close();
    }
  });
});

describe('SqliteReadStore indexes', () => {
  it('brings back the declared indexes a cut-short rebuild left dropped, and drops one nothing declares', async () => {
    await new SqliteReadStore(file).close();
    const declared = schemaOf(file).filter((o) => o.type === 'index');
    const db = new Database(file);
    db.exec(`DROP INDEX timeline_by_actor; DROP INDEX incidents_by_status; CREATE INDEX timeline_by_source ON timeline (json_extract(doc, '$.event.source'))`);
    db.close();
    await new SqliteReadStore(file).close();
    expect(schemaOf(file).filter((o) => o.type === 'index')).toEqual(declared);
  });
});
