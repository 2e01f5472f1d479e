import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ReadModelCatchingUpError } from '@im/read-models';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { BackgroundReads } from './reads';
import { docsDatabase } from './docs-database.fixture';

// A statement that keeps SQLite busy for a while: the sum of the first few million integers.
const SLOW = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT sum(i) FROM n`;

describe('BackgroundReads', () => {
  // The store's own connection (db) writes while the worker reads.
  const { dir, file, db } = docsDatabase('background-reads-');
  const failures: string[] = [];
  let reads: BackgroundReads;
  beforeEach(() => {
    failures.length = 0;
    reads = new BackgroundReads(file, (message) => failures.push(message));
  });
  afterEach(() => reads.close());

  it('starts with its first read, which runs on the caller’s connection meanwhile, then answers from the file', async () => {
    db().prepare('INSERT OR REPLACE INTO docs VALUES (?, ?)').run('a', '{"n":1}');
    expect(await reads.all('SELECT doc FROM docs', [], 'pluck')).toBeUndefined();
    expect(await reads.start()).toBe(true);
    expect(await reads.all('SELECT doc FROM docs WHERE key = ?', ['a'], 'pluck')).toEqual(['{"n":1}']);
    expect(await reads.all('SELECT key, doc FROM docs WHERE key = ?', ['a'], 'raw')).toEqual([['a', '{"n":1}']]);
  });

  it('sees every commit made before a read was asked (read-your-writes)', async () => {
    await reads.start();
    const insert = db().prepare('INSERT INTO docs VALUES (?, ?)');
    const count = 'SELECT count(*) FROM docs WHERE key LIKE ?';
    for (let i = 0; i < 200; i++) {
      insert.run(`ryw-${i}`, '{}');
      expect(await reads.all(count, ['ryw-%'], 'pluck')).toEqual([i + 1]);
    }
  });

  it('runs a read off the event loop', async () => {
    await reads.start();
    let turns = 0;
    let answered = false;
    const reading = reads.all(SLOW, [], 'pluck').then((rows) => {
      answered = true;
      return rows;
    });
    while (!answered) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      turns++;
    }
    expect(await reading).toEqual([4_500_001_500_000]);
    // On the caller's connection the statement would hold the loop until it ended.
    expect(turns).toBeGreaterThan(1);
  });

  it('answers undefined for a statement that fails there, and goes on serving', async () => {
    await reads.start();
    expect(await reads.all('SELECT doc FROM missing', [], 'pluck')).toBeUndefined();
    expect(await reads.all('SELECT count(*) FROM docs WHERE key = ?', ['a'], 'pluck')).toEqual([1]);
    expect(failures).toEqual([]);
  });

  it('sends the reads asked in one turn of the event loop as one message, and answers each as asked', async () => {
    await reads.start();
    db().prepare('INSERT OR REPLACE INTO docs VALUES (?, ?)').run('b', '{"n":2}');
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      const answers = await Promise.all([
        reads.all('SELECT doc FROM docs WHERE key = ?', ['a'], 'pluck'),
        reads.all('SELECT doc FROM missing', [], 'pluck'),
        reads.all('SELECT key, doc FROM docs WHERE key = ?', ['b'], 'raw'),
      ]);
      expect(answers).toEqual([['{"n":1}'], undefined, [['b', '{"n":2}']]]);
      expect(posted).toHaveBeenCalledTimes(1);
    } finally {
      posted.mockRestore();
    }
  });

  it('answers a read waiting when it is closed, and none after', async () => {
    await reads.start();
    const waiting = reads.all('SELECT count(*) FROM docs WHERE key = ?', ['a'], 'pluck');
    await reads.close();
    expect(await waiting).toEqual([1]);
    expect(await reads.all('SELECT 1', [], 'pluck')).toBeUndefined();
    expect(await reads.start()).toBe(false);
    expect(failures).toEqual([]);
  });

  it('reports once that it could not open the file, and leaves every read to the caller', async () => {
    const elsewhere = new BackgroundReads(join(dir, 'missing.sqlite'), (message) => failures.push(message));
    expect(await elsewhere.start()).toBe(false);
    expect(await elsewhere.all('SELECT 1', [], 'pluck')).toBeUndefined();
    expect(failures).toEqual([expect.stringMatching(/^Background reads did not start \(SQLITE_CANTOPEN: .*\); lists are read on the event loop$/)]);
    await elsewhere.close();
  });
});

describe('the SQLite read store with its lists read in the background', () => {
  const dir = mkdtempSync(join(tmpdir(), 'background-reads-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Past 500 assignments, a user's list walks the newest-first index, named in the statement.
  const INCIDENTS = 600;
  const incident = (n: number) => {
    const createdAt = new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString();
    return { id: `INC-${n}`, title: `incident ${n}`, severity: 'SEV-2', status: 'open', createdAt, updatedAt: createdAt };
  };

  it('answers a list asked before a bulk load dropped its index as a read during a rebuild does, and from the worker again after', async () => {
    const file = join(dir, 'read-models.sqlite');
    const reads = new BackgroundReads(file, () => undefined);
    const answered: number[] = [];
    const counted = {
      all: async (...args: Parameters<BackgroundReads['all']>) => {
        const rows = await reads.all(...args);
        if (rows) answered.push(rows.length);
        return rows;
      },
      close: () => reads.close(),
    };
    const store = new SqliteReadStore(file, undefined, { backgroundReads: counted });
    const all = Array.from({ length: INCIDENTS }, (_, i) => incident(i + 1));
    await store.commitBatch([
      { projection: 'incidents', writes: all.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })), position: BigInt(INCIDENTS) },
      { projection: 'assignments', writes: all.map((doc, i) => ({ key: `${doc.id}/IC`, doc: { incidentId: doc.id, role: 'IC', userId: 'ann' }, position: BigInt(i + 1) })), position: BigInt(INCIDENTS) },
    ]);
    await reads.start();
    const newest = (await store.incidents.listForUser('ann', { limit: 3 })).map(({ id }) => id);
    expect(newest).toEqual(['INC-600', 'INC-599', 'INC-598']);
    expect(answered).toEqual([3]);

    // The worker is busy with a slow read when the list is asked; the load drops the indexes before the worker reaches it.
    const slow = reads.all(SLOW, [], 'pluck');
    const listing = store.incidents.listForUser('ann', { limit: 3 });
    let release: () => void;
    const loading = store.bulkLoad(() => new Promise<void>((resolve) => (release = resolve)));
    await expect(listing).rejects.toBeInstanceOf(ReadModelCatchingUpError);
    await slow;
    release!();
    await loading;
    expect((await store.incidents.listForUser('ann', { limit: 3 })).map(({ id }) => id)).toEqual(newest);
    expect(answered).toEqual([3, 3]);
    await store.close();
  });
  it('refuses a list while the indexes of either table it reads are down, and answers it again once they are built', async () => {
    const store = new SqliteReadStore(join(dir, 'partly-loaded.sqlite'), undefined, { backgroundReads: new BackgroundReads(join(dir, 'partly-loaded.sqlite'), () => undefined) });
    const all = Array.from({ length: INCIDENTS }, (_, i) => incident(i + 1));
    // Ann holds every incident (the plan that walks the index), Bob three (the plan that sorts).
    const roles = [...all.map(({ id }) => ({ id, userId: 'ann', role: 'IC' })), ...all.slice(0, 3).map(({ id }) => ({ id, userId: 'bob', role: 'scribe' }))];
    await store.commitBatch([
      { projection: 'incidents', writes: all.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })), position: BigInt(INCIDENTS) },
      { projection: 'assignments', writes: roles.map(({ id, userId, role }, i) => ({ key: `${id}/${role}`, doc: { incidentId: id, role, userId }, position: BigInt(i + 1) })), position: BigInt(INCIDENTS) },
    ]);
    const ids = (incidents: { id: string }[]) => incidents.map(({ id }) => id);
    const lists = () => Promise.allSettled([store.incidents.listForUser('ann', { limit: 2 }), store.incidents.listForUser('bob', { limit: 2 }), store.incidents.list({ limit: 2 })]);

    const whileAssignmentsLoad = await store.bulkLoad(lists, { projections: ['assignments'] });
    expect(whileAssignmentsLoad.map(({ status }) => status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    whileAssignmentsLoad.slice(0, 2).forEach((settled) => expect((settled as PromiseRejectedResult).reason).toBeInstanceOf(ReadModelCatchingUpError));
    expect(ids((whileAssignmentsLoad[2] as PromiseFulfilledResult<{ id: string }[]>).value)).toEqual(['INC-600', 'INC-599']);

    const whileIncidentsLoad = await store.bulkLoad(lists, { projections: ['incidents'] });
    // Bob's few incidents are found by key and sorted: that plan needs no index of the incidents.
    expect(whileIncidentsLoad.map(({ status }) => status)).toEqual(['rejected', 'fulfilled', 'rejected']);
    [whileIncidentsLoad[0], whileIncidentsLoad[2]].forEach((settled) => expect((settled as PromiseRejectedResult).reason).toBeInstanceOf(ReadModelCatchingUpError));
    expect(ids((whileIncidentsLoad[1] as PromiseFulfilledResult<{ id: string }[]>).value)).toEqual(['INC-3', 'INC-2']);

    const after = await lists();
    expect(after.map((settled) => ids((settled as PromiseFulfilledResult<{ id: string }[]>).value))).toEqual([['INC-600', 'INC-599'], ['INC-3', 'INC-2'], ['INC-600', 'INC-599']]);
    await store.close();
  });
});
