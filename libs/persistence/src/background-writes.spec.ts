import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { BackgroundWrites } from './background-writes';
import { docsDatabase } from './docs-database.fixture';

// An insert that keeps SQLite busy for a while: a few million rows made and summed.
const SLOW = `INSERT INTO docs (key, doc) SELECT 'slow', (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT sum(i) FROM n)`;

describe('BackgroundWrites', () => {
  // The store's own connection (db) reads what the worker wrote.
  const { dir, file, db } = docsDatabase('background-writes-');
  const failures: string[] = [];
  let writes: BackgroundWrites;
  const docs = () => db().prepare('SELECT key, doc FROM docs ORDER BY key').raw().all();
  beforeEach(() => {
    failures.length = 0;
    db().exec('DELETE FROM docs');
    writes = new BackgroundWrites(file, 1000, (message) => failures.push(message));
  });
  afterEach(() => writes.close());

  it('starts with its first write, which the caller makes meanwhile, then commits each transaction before it answers', async () => {
    expect(await writes.transaction([['INSERT INTO docs VALUES (?, ?)', ['a', '{}']]])).toBeUndefined();
    expect(docs()).toEqual([]);
    expect(await writes.start()).toBe(true);
    const changes = await writes.transaction([
      ['INSERT INTO docs VALUES (?, ?)', ['a', '{"n":1}']],
      ['INSERT INTO docs VALUES (@key, @doc)', { key: 'b', doc: '{"n":2}' }],
      ['DELETE FROM docs WHERE key = ?', ['missing']],
    ]);
    expect(changes).toEqual([1, 1, 0]);
    expect(docs()).toEqual([
      ['a', '{"n":1}'],
      ['b', '{"n":2}'],
    ]);
  });

  it('rolls a failed transaction back whole and rejects with SQLite’s code', async () => {
    await writes.start();
    const failing = writes.transaction([
      ['INSERT INTO docs VALUES (?, ?)', ['a', '{}']],
      ['INSERT INTO docs VALUES (?, ?)', ['a', '{}']],
    ]);
    await expect(failing).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(docs()).toEqual([]);
    expect(await writes.transaction([['INSERT INTO docs VALUES (?, ?)', ['a', '{}']]])).toEqual([1]);
    expect(failures).toEqual([]);
  });

  it('writes off the event loop', async () => {
    await writes.start();
    const turned = new Promise((resolve) => setTimeout(() => resolve('the loop turned'), 1));
    // On the caller's connection the statement would hold the loop until it ended, and answer first.
    const writing = writes.transaction([[SLOW, []]]);
    expect(await Promise.race([turned, writing.then(() => 'written')])).toBe('the loop turned');
    expect(await writing).toEqual([1]);
    expect(docs()).toEqual([['slow', '4500001500000']]);
  });

  it('answers a write waiting when it is closed, and none after', async () => {
    await writes.start();
    const waiting = writes.transaction([['INSERT INTO docs VALUES (?, ?)', ['a', '{}']]]);
    await writes.close();
    expect(await waiting).toEqual([1]);
    expect(await writes.transaction([['INSERT INTO docs VALUES (?, ?)', ['b', '{}']]])).toBeUndefined();
    expect(docs()).toEqual([['a', '{}']]);
    expect(failures).toEqual([]);
  });

  it('reports once that it could not open the file, and leaves every write to the caller', async () => {
    const elsewhere = new BackgroundWrites(join(dir, 'missing.sqlite'), 1000, (message) => failures.push(message));
    expect(await elsewhere.start()).toBe(false);
    expect(await elsewhere.transaction([['SELECT 1', []]])).toBeUndefined();
    expect(failures).toEqual([expect.stringMatching(/^Background writes did not start \(SQLITE_CANTOPEN: .*\); the read models are written on the event loop$/)]);
    await elsewhere.close();
  });
});

describe('the SQLite read store with its writes made in the background', () => {
  const dir = mkdtempSync(join(tmpdir(), 'background-writes-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const incident = (n: number) => ({ id: `INC-${n}`, title: `incident ${n}`, severity: 'SEV-2', status: 'open', createdAt: '2026-11-27T06:00:00.000Z', updatedAt: '2026-11-27T06:00:00.000Z' });

  it('makes a small transaction on the store’s connection and hands a large one to the worker', async () => {
    const file = join(dir, 'read-models-sizes.sqlite');
    const writes = new BackgroundWrites(file, 1000, () => undefined);
    const store = new SqliteReadStore(file, undefined, { backgroundWrites: writes });
    const toWorker = jest.spyOn(writes, 'transaction');
    await writes.start();
    const commit = (from: number, count: number) =>
      store.commitBatch([{ projection: 'incidents', writes: Array.from({ length: count }, (_, i) => ({ key: `INC-${from + i}`, doc: incident(from + i), position: BigInt(from + i) })), position: BigInt(from + count - 1) }]);
    // The documents and the checkpoint: 4 statements, then 151.
    await commit(1, 3);
    expect(toWorker).not.toHaveBeenCalled();
    await commit(4, 150);
    expect(toWorker).toHaveBeenCalledTimes(1);
    expect(toWorker.mock.calls[0][0]).toHaveLength(151);
    expect((await store.incidents.findById('INC-153'))?.title).toBe('incident 153');
    expect(await store.checkpoint('incidents')).toBe(153n);
    await store.close();
  });

  it('keeps the order writes were asked in when the worker ends with one in flight: that one is made again on the store’s connection', async () => {
    const file = join(dir, 'read-models.sqlite');
    const writes = new BackgroundWrites(file, 1000, () => undefined);
    const ran: string[] = [];
    let calls = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const store = new SqliteReadStore(file, undefined, {
      backgroundWrites: {
        transaction: async (steps) => {
          calls++;
          mostInFlight = Math.max(mostInFlight, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          // The second transaction: the worker commits it, then ends before its answer arrives.
          if (calls === 2) {
            await writes.transaction(steps);
            await writes.close();
            ran.push('worker, then ended');
            return undefined;
          }
          const changes = await writes.transaction(steps);
          ran.push(changes ? 'worker' : 'store');
          return changes;
        },
        close: () => writes.close(),
      },
    });
    await writes.start();
    const commits = [1, 2, 3].map((n) =>
      store.commitBatch([{ projection: 'incidents', writes: [{ key: 'INC-1', doc: incident(n), position: BigInt(n) }], position: BigInt(n) }]),
    );
    await Promise.all(commits);
    expect(ran).toEqual(['worker', 'worker, then ended', 'store']);
    expect(mostInFlight).toBe(1);
    expect((await store.incidents.findById('INC-1'))?.title).toBe('incident 3');
    expect(await store.checkpoint('incidents')).toBe(3n);
    await store.close();
  });
});
