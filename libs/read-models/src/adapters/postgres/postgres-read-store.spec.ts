import { Client } from 'pg';
import type { Incident } from '@im/incidents';
import { temporaryDatabase, type TemporaryDatabase } from '../../../../../test/support/postgres-database';
import { recorded } from '../../read-store.contract';
import { ALL_PROJECTIONS } from '../../read-models';
import { incidentProjection } from '../../incidents/incident.projection';
import { timelineProjection, toTimelineRecord } from '../../timeline/timeline.projection';
import { serviceProjection, type ServiceRecord } from '../../oncall/oncall.projections';
import type { Projection } from '../../projection';
import { PostgresReadStore } from './postgres-read-store';
import { PROJECTIONS_LEASE } from '../../leases/lease-store.port';

let database: TemporaryDatabase;
beforeEach(async () => {
  database = await temporaryDatabase('read_store_schema');
});
afterEach(() => database.drop());

/** Runs SQL on the database as an operator would, beside the stores. */
async function onDatabase<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const indexesOf = (table: string) =>
  onDatabase(async (client) => (await client.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`, [table])).rows.map((row) => row.indexname as string));

const incident: Incident = { id: 'INC-00000001', title: 'Disk full', severity: 'SEV-2', status: 'open', createdAt: '2026-11-22T00:00:00.000Z', updatedAt: '2026-11-22T00:00:00.000Z' };

describe('PostgresReadStore schema', () => {
  it('opens in several processes at once on a new database, the migrations applied and each read model created once', async () => {
    const stores = await Promise.all([1, 2, 3, 4].map(() => PostgresReadStore.connect(database.url)));
    try {
      await stores[0].commit(incidentProjection.name, [{ key: incident.id, doc: incident, position: 1n }], 1n);
      for (const store of stores) expect(await store.incidents.findById(incident.id)).toEqual(incident);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const recorded = await onDatabase(async (client) => ({
      migrations: (await client.query(`SELECT version FROM schema_migrations WHERE component = 'read_store' ORDER BY version`)).rows,
      schemas: (await client.query('SELECT projection FROM rm_schemas ORDER BY projection')).rows.map((row) => row.projection),
    }));
    expect(recorded).toEqual({ migrations: [{ version: 1 }, { version: 2 }], schemas: ALL_PROJECTIONS.map(({ name }) => name).sort() });
  });

  it('brings back a declared index dropped by hand and drops one nothing declares', async () => {
    await (await PostgresReadStore.connect(database.url)).close();
    const declared = await indexesOf('rm_timeline');
    expect(declared).toContain('rm_timeline_by_actor');
    await onDatabase((client) => client.query(`DROP INDEX rm_timeline_by_actor; CREATE INDEX rm_timeline_by_source ON rm_timeline ((doc -> 'event' ->> 'source'))`));
    await (await PostgresReadStore.connect(database.url)).close();
    expect(await indexesOf('rm_timeline')).toEqual(declared);
  });

  it('folds a read model again from the log when its declared query fields change, and leaves the others as they were', async () => {
    const first = await PostgresReadStore.connect(database.url);
    await first.commit(incidentProjection.name, [{ key: incident.id, doc: incident, position: 1n }], 1n);
    await first.commit(serviceProjection.name, [{ key: 's1', doc: { id: 's1', name: 'db', description: null, escalationPolicyId: null, createdAt: incident.createdAt } satisfies ServiceRecord, position: 2n }], 2n);
    await first.close();
    const schema = incidentProjection.schema!;
    const withTitle: Projection<unknown> = {
      ...incidentProjection,
      schema: { ...schema, fields: { ...schema.fields, title: { type: 'text', path: ['title'] } }, indexes: [...schema.indexes, { name: 'by_title', on: ['title'] }] },
    } as Projection<unknown>;
    const projections = ALL_PROJECTIONS.map((projection) => (projection.name === incidentProjection.name ? withTitle : projection));
    const store = await PostgresReadStore.connect(database.url, { projections });
    try {
      expect(await store.checkpoint(incidentProjection.name)).toBe(0n);
      expect(await store.incidents.findById(incident.id)).toBeUndefined();
      expect(await store.checkpoint(serviceProjection.name)).toBe(2n);
      expect(await store.oncall.services.findById('s1')).toMatchObject({ name: 'db' });
      await store.commit(incidentProjection.name, [{ key: incident.id, doc: incident, position: 1n }], 1n);
      expect(await store.incidents.findById(incident.id)).toEqual(incident);
    } finally {
      await store.close();
    }
    expect(await indexesOf('rm_incidents')).toContain('rm_incidents_by_title');
    // Opened again as declared: nothing changes.
    await (await PostgresReadStore.connect(database.url, { projections })).close();
    const reopened = await PostgresReadStore.connect(database.url, { projections });
    try {
      expect(await reopened.checkpoint(incidentProjection.name)).toBe(1n);
    } finally {
      await reopened.close();
    }
  });
});

describe('PostgresReadStore text', () => {
  it('keeps, finds and orders values holding U+0000, which PostgreSQL text cannot hold, as SQLite does', async () => {
    const store = await PostgresReadStore.connect(database.url);
    try {
      const events = [
        recorded('INC-0000000a', 1, 'im.incident.note', { 'im.actor': 'bot\u0000one', 'im.fingerprint': 'disk\u0001db' }),
        recorded('INC-0000000a', 2, 'im.incident.note', { 'im.actor': 'bot\u0001one' }),
      ];
      await store.commit(timelineProjection.name, events.map((e) => ({ key: String(e.position), doc: toTimelineRecord(e), position: e.position })), events[1].position);
      const found = await store.timeline.list({ actor: 'bot\u0000one', order: 'asc', limit: 10 });
      expect(found.map((row) => row.entry.actor)).toEqual(['bot\u0000one']);
      expect((await store.timeline.list({ fingerprint: 'disk\u0001db', order: 'asc', limit: 10 })).map((row) => row.entry.id)).toEqual([events[0].event.id]);

      // Keys and sort columns keep code-point order: 'a' < 'a\0b' < 'a\x01' < 'a\x02'.
      const ids = ['a\u0002', 'a\u0001', 'a\u0000b', 'a'];
      const service = (id: string): ServiceRecord => ({ id, name: id, description: null, escalationPolicyId: null, createdAt: incident.createdAt });
      await store.commit(serviceProjection.name, ids.map((id, i) => ({ key: id, doc: service(id), position: BigInt(i + 1) })), 4n);
      expect((await store.oncall.services.list()).map((s) => s.id)).toEqual(['a', 'a\u0000b', 'a\u0001', 'a\u0002']);
      expect([...(await store.load(serviceProjection.name, ['a\u0000b', 'a\u0001'])).keys()].sort()).toEqual(['a\u0000b', 'a\u0001']);
    } finally {
      await store.close();
    }
  });
});

describe('PostgresReadStore leases', () => {
  it("makes a takeover wait for the old holder's fenced write under way, so the new holder reads what it committed", async () => {
    const [a, b] = await Promise.all([PostgresReadStore.connect(database.url), PostgresReadStore.connect(database.url)]);
    try {
      const holder = (id: string) => ({ id, pid: 1, host: 'test', kind: 'projector' as const });
      await a.leases.acquire(PROJECTIONS_LEASE, holder('a'), 300);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const order: string[] = [];
      let takeover: Promise<unknown> | undefined;
      // A's write passed its check (the lease lapsed, but no one took it yet); B's acquire comes while A's transaction is still open.
      await a.leases.fenced([PROJECTIONS_LEASE], async (client) => {
        takeover = b.leases.acquire(PROJECTIONS_LEASE, holder('b'), 60_000).then((fence) => order.push(`b took generation ${fence?.generation}`));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await client.query(`INSERT INTO rm_checkpoints (projection, position) VALUES ('incidents', 1)`);
        order.push('a wrote');
      });
      await takeover;
      expect(order).toEqual(['a wrote', 'b took generation 2']);
      expect(await b.checkpoint(incidentProjection.name)).toBe(1n);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
