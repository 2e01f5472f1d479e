import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { toCloudEvent } from '@im/cloudevents';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { type IncidentEvent, incidentStreamId } from '@im/incidents';
import {
  ALL_PROJECTIONS,
  foldBatch,
  incidentProjection,
  ProjectionLagError,
  ProjectionRunner,
  ReadModelsAheadError,
  rebuildProjections,
} from '@im/read-models';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { tempDir } from './support/temp-dir';

const dir = tempDir('projections');
afterAll(() => dir.remove());

let n = 0;
/** `indexesInWorker`: the read store runs its workers (the indexes that end a bulk load built in a worker thread), as the api and the projector do. */
function open({ indexesInWorker = false } = {}) {
  const sub = join(dir.path, String(++n));
  mkdirSync(sub);
  const readFile = join(sub, 'read.sqlite');
  return {
    events: new SqliteEventStore(join(sub, 'events.sqlite'), { pollIntervalMs: 20 }),
    read: new SqliteReadStore(readFile, undefined, { workers: indexesInWorker }),
    readFile,
  };
}

const declare = (id: string, title: string, time: string): IncidentEvent => ({
  type: 'im.incident.declare',
  incidentId: id,
  time,
  data: { title, severity: 'SEV-2' },
});
const ack = (id: string, time: string): IncidentEvent => ({ type: 'im.incident.ack', incidentId: id, time, data: {} });

async function seed(events: SqliteEventStore, count: number) {
  let last = 0n;
  for (let i = 0; i < count; i++) {
    const id = `INC-${i.toString(16).padStart(8, '0')}`;
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    await events.append(incidentStreamId(id), [toCloudEvent(declare(id, `incident ${i}`, t), { actor: 'test', sender: 'test' })], 'no_stream');
    if (i % 2 === 0) {
      last = (await events.append(incidentStreamId(id), [toCloudEvent(ack(id, t), { actor: 'test', sender: 'test' })], 0n)).position;
    }
  }
  return last;
}

const dump = (file: string) =>
  new Database(file, { readonly: true }).prepare('SELECT key, position, doc FROM incidents ORDER BY key').all();

describe('projection runner', () => {
  it('catches up from the checkpoint and lets a writer wait until its position is applied', async () => {
    const { events, read } = open();
    await seed(events, 3);
    const runner = new ProjectionRunner(events, read, ALL_PROJECTIONS);
    await runner.start();
    try {
      const { position } = await events.append(
        incidentStreamId('INC-00000001'),
        [toCloudEvent(ack('INC-00000001', '2026-01-01T01:00:00.000Z'), { actor: 'test', sender: 'test' })],
        0n,
      );
      await runner.waitFor(position, 5000);
      expect(await read.checkpoint(incidentProjection.name)).toBeGreaterThanOrEqual(position);
      // Every applied event counts towards the ledger-to-read-model lag figures.
      const lag = runner.recentLag()!;
      expect(lag.events).toBe(Number(position));
      expect(lag.p50Ms).toBeGreaterThanOrEqual(0);
      expect(lag.p99Ms).toBeGreaterThanOrEqual(lag.p50Ms);
      expect(lag.maxMs).toBeLessThan(5000);
      // An incident's times are when the ledger recorded the change, not the event's own time.
      const [acked] = await events.readStream(incidentStreamId('INC-00000001'), 1n);
      expect(await read.incidents.findById('INC-00000001')).toMatchObject({
        status: 'acknowledged',
        updatedAt: acked.recordedAt,
      });
    } finally {
      await runner.stop();
      await events.close();
      await read.close();
    }
  });

  it('resumes from its checkpoint after a restart without applying anything twice', async () => {
    const { events, read, readFile } = open();
    await seed(events, 4);
    const first = new ProjectionRunner(events, read, ALL_PROJECTIONS);
    await first.start();
    await first.waitFor(await events.headPosition(), 5000);
    await first.stop();
    const before = dump(readFile);

    const second = new ProjectionRunner(events, read, ALL_PROJECTIONS);
    await second.start();
    await second.waitFor(await events.headPosition(), 5000);
    await second.stop();
    expect(dump(readFile)).toEqual(before);
    await events.close();
    await read.close();
  });

  it('refuses to start when the read models are ahead of the log (an older log restored under newer read models)', async () => {
    const { events, read } = open();
    await seed(events, 4);
    const runner = new ProjectionRunner(events, read, ALL_PROJECTIONS);
    await runner.start();
    await runner.waitFor(await events.headPosition(), 5000);
    await runner.stop();
    await events.close();
    // The same read models over a fresh, shorter log.
    const sub = join(dir.path, String(++n));
    mkdirSync(sub);
    const older = new SqliteEventStore(join(sub, 'events.sqlite'));
    await seed(older, 1);
    const restarted = new ProjectionRunner(older, read, ALL_PROJECTIONS);
    await expect(restarted.start()).rejects.toThrow(ReadModelsAheadError);
    await expect(restarted.start()).rejects.toThrow(/beyond the end of the event log \(2\); run "npm run projections:rebuild"/);
    await older.close();
    await read.close();
  });

  it('skips events a document already reflects when a batch is delivered again', async () => {
    const { events, read, readFile } = open();
    await seed(events, 2);
    const batch = await events.readAll(0n, 100);
    await read.commitBatch([await foldBatch(read, incidentProjection, batch)]);
    const once = dump(readFile);
    await read.commitBatch([await foldBatch(read, incidentProjection, batch)]);
    expect(dump(readFile)).toEqual(once);
    await events.close();
    await read.close();
  });

  it('reports a lag error when the read models do not reach a position in time', async () => {
    const { events, read } = open();
    const runner = new ProjectionRunner(events, read, ALL_PROJECTIONS);
    await expect(runner.waitFor(1n, 50)).rejects.toBeInstanceOf(ProjectionLagError);
    await events.close();
    await read.close();
  });

  it.each([
    ['its indexes built on its own connection', false],
    ['its indexes built in a worker thread', true],
  ])('rebuilds the read models from the log into the same rows, byte for byte, %s', async (_, indexesInWorker) => {
    const { events, read, readFile } = open({ indexesInWorker });
    await seed(events, 25);
    const runner = new ProjectionRunner(events, read, ALL_PROJECTIONS);
    await runner.start();
    await runner.waitFor(await events.headPosition(), 5000);
    await runner.stop();
    const live = dump(readFile);
    expect(live).toHaveLength(25);
    const indexes = () =>
      new Database(readFile, { readonly: true }).prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name`).all();
    const indexesBefore = indexes();
    expect(indexesBefore.length).toBeGreaterThan(10);

    const replayed = await rebuildProjections(events, read, ALL_PROJECTIONS);
    expect(replayed).toBe(25 + 13);
    expect(dump(readFile)).toEqual(live);
    // The rebuild loads without secondary indexes: every one is back afterwards, and queries use them.
    expect(indexes()).toEqual(indexesBefore);
    expect((await read.timeline.list({ incidentId: 'INC-00000002', order: 'asc', limit: 10 })).length).toBe(2);
    await events.close();
    await read.close();
  });
});
