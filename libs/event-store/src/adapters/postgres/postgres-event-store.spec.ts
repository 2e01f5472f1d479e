import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { CloudEvent } from '@im/cloudevents';
import { temporaryDatabase, type TemporaryDatabase } from '../../../../../test/support/postgres-database';
import { expectChained } from '../../event-store.contract';
import { DuplicateEventError, type RecordedEvent, type Subscription, WrongExpectedRevisionError } from '../../event-store.port';
import { storageFaultOf } from '../../storage-fault';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres-event-store';

// What the contract suite (test/contracts/event-store.contract.spec.ts) cannot say with one store: several
// processes on one database, each with its own pool, and the server ending connections.

/** `data` of any JSON type: a binary-mode event's body may be a string, a number, an array. */
const event = (type = 'im.test.happened', data: unknown = {}, extensions: Record<string, unknown> = {}): CloudEvent =>
  ({ specversion: '1.0', id: randomUUID(), source: 'im://postgres-test', type, time: new Date().toISOString(), data, ...extensions }) as CloudEvent;

async function eventually(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A follower that records what it was handed, and whether each batch went on right where the last one ended. */
function follow(store: PostgresEventStore, after = 0n) {
  const seen: RecordedEvent[] = [];
  const skips: string[] = [];
  const subscription: Subscription = store.subscribeToAll(after, async (batch) => {
    for (const recorded of batch) {
      const expected = (seen.length > 0 ? seen[seen.length - 1].position : after) + 1n;
      if (recorded.position !== expected) skips.push(`${expected} -> ${recorded.position}`);
      seen.push(recorded);
    }
  });
  return { seen, skips, stop: () => subscription.stop() };
}

describe('PostgresEventStore: several processes on one database', () => {
  let database: TemporaryDatabase;
  let admin: Client;
  const opened: PostgresEventStore[] = [];
  // No poll to speak of: what a follower receives live came through a notification.
  const open = async (options: PostgresEventStoreOptions = {}) => {
    const store = await PostgresEventStore.open(database.url, { pollIntervalMs: 600_000, ...options });
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    database = await temporaryDatabase('event_store');
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await admin.end();
    await database.drop();
  });

  it('gives positions once each, without gaps and in commit order, to two stores appending at once to their own streams and to one shared', async () => {
    const [a, b] = [await open(), await open()];
    const follower = follow(b);
    const writes = Array.from({ length: 40 }, (_, i) => [
      a.append(`a-${i % 4}`, [event()], 'any'),
      b.append(`b-${i % 4}`, [event(), event()], 'any'),
      a.append('shared', [event('im.test.shared', { from: 'a', i })], 'any'),
      b.append('shared', [event('im.test.shared', { from: 'b', i })], 'any'),
      b.appendMulti([
        { streamId: `multi-${i}`, events: [event()], expected: 'no_stream' },
        { streamId: 'shared', events: [event('im.test.shared', { from: 'multi', i })], expected: 'any' },
      ]),
    ]);
    await Promise.all(writes.flat());
    const total = 40 * 7;
    expect(await a.headPosition()).toBe(BigInt(total));
    const all = await b.readAll(0n, 10_000);
    expect(all.map((recorded) => recorded.position)).toEqual(Array.from({ length: total }, (_, i) => BigInt(i + 1)));
    const shared = await a.readStream('shared');
    expect(shared.map((recorded) => recorded.revision)).toEqual(Array.from({ length: 120 }, (_, i) => BigInt(i)));
    expectChained(shared);
    // A follower reading while the appends committed never saw a position before one below it.
    await eventually(() => follower.seen.at(-1)?.position === BigInt(total));
    expect(follower.skips).toEqual([]);
    await follower.stop();
  }, 30_000);

  it('answers each of the appends one store is asked for at once on its own, though they share transactions', async () => {
    const store = await open();
    await store.append('taken', [event()], 'no_stream', { dedupKeys: ['k-taken'] });
    // Asked in one turn: the first goes alone, the rest wait for it and share the next transaction.
    const [first, onFirst, stale, duplicate, takenAlready, other, multi] = await Promise.allSettled([
      store.append('s', [event()], 'no_stream', { dedupKeys: ['k-s0'] }),
      store.append('s', [event(), event()], 0n),
      store.append('s', [event()], 0n),
      store.append('t', [event()], 'no_stream', { dedupKeys: ['k-s0'] }),
      store.append('u', [event()], 'no_stream', { dedupKeys: ['k-taken'] }),
      store.append('v', [event()], 'no_stream', { dedupKeys: ['k-v'] }),
      store.appendMulti([
        { streamId: 'w', events: [event()], expected: 'no_stream' },
        { streamId: 'v', events: [event()], expected: 5n },
      ]),
    ]);
    expect([first, onFirst, other].map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(stale).toMatchObject({ status: 'rejected', reason: { constructor: WrongExpectedRevisionError, expected: 0n, actual: 2n } });
    expect(duplicate).toMatchObject({ status: 'rejected', reason: { constructor: DuplicateEventError, key: 'k-s0' } });
    expect((duplicate as PromiseRejectedResult).reason.existing.streamId).toBe('s');
    expect(takenAlready).toMatchObject({ status: 'rejected', reason: { constructor: DuplicateEventError, key: 'k-taken' } });
    // A refused part refuses its whole append, and nothing of it is written.
    expect(multi).toMatchObject({ status: 'rejected', reason: { constructor: WrongExpectedRevisionError, streamId: 'v' } });
    expect(await store.readStream('w')).toEqual([]);
    const s = await store.readStream('s');
    expect(s.map((recorded) => recorded.revision)).toEqual([0n, 1n, 2n]);
    expectChained(s);
    const all = await store.readAll(0n, 100);
    expect(all.map((recorded) => recorded.position)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect((await store.findByDedupKey('k-v'))?.streamId).toBe('v');
  });

  it('delivers an append made through one store to a subscriber of another, live', async () => {
    const [a, b] = [await open(), await open()];
    await a.append('s', [event('im.test.before')], 'no_stream');
    const follower = follow(b, await b.headPosition());
    await eventually(async () => (await listeners(admin)).length === 1);
    await a.append('s', [event('im.test.live')], 0n);
    await eventually(() => follower.seen.length === 1);
    expect(follower.seen.map((recorded) => recorded.event.type)).toEqual(['im.test.live']);
    await follower.stop();
  });

  it('lets one of two stores appending at the same revision win, and tells the other where the stream is', async () => {
    const [a, b] = [await open(), await open()];
    await a.append('s', [event()], 'no_stream', { dedupKeys: ['first'] });
    const attempts = await Promise.allSettled([a.append('s', [event()], 0n), b.append('s', [event()], 0n)]);
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    const [refused] = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(refused.reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(refused.reason).toMatchObject({ streamId: 's', expected: 0n, actual: 1n });
    await expect(b.append('s', [event()], 'no_stream')).rejects.toMatchObject({ constructor: WrongExpectedRevisionError, actual: 1n });
    await expect(b.append('t', [event()], 'no_stream', { dedupKeys: ['first'] })).rejects.toBeInstanceOf(DuplicateEventError);
  });

  it('listens again when the server ends the listening connection, and the subscriber goes on receiving appends', async () => {
    const [a, b] = [await open(), await open({ applicationName: 'follower' })];
    const follower = follow(b);
    await eventually(async () => (await listeners(admin, 'follower')).length === 1);
    const [ended] = await listeners(admin, 'follower');
    await admin.query('SELECT pg_terminate_backend($1)', [ended]);
    // Appended while nobody listens: found when the listener is back.
    await a.append('s', [event('im.test.unheard')], 'no_stream');
    await eventually(async () => (await listeners(admin, 'follower')).some((pid) => pid !== ended));
    await a.append('s', [event('im.test.heard')], 0n);
    await eventually(() => follower.seen.length === 2);
    expect(follower.seen.map((recorded) => recorded.event.type)).toEqual(['im.test.unheard', 'im.test.heard']);
    await follower.stop();
  });

  it('appends and reads on after the server ended every connection of the store', async () => {
    const store = await open({ applicationName: 'ended' });
    await store.append('s', [event()], 'no_stream');
    await Promise.all([store.readStream('s'), store.readStream('t'), store.headPosition()]);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ended'`);
    await store.append('s', [event()], 0n);
    expect(await store.readStream('s')).toHaveLength(2);
  });

  it('keeps the log, its head and the dedup keys when closed and opened again, and goes on from the next position', async () => {
    const first = await open();
    const appended = [event('im.test.a', { n: 1.5, list: [null, true, 'x\u0000"\\'] }, { 'im.actor': 'ann', 'im.data_class': ['pii'] }), event('im.test.b', 'text data'), event('im.test.c', [1, -0.25, 1e21])];
    await first.append('s', appended, 'no_stream', { dedupKeys: ['k'] });
    const before = await first.readAll(0n, 100);
    expect(before.map((recorded) => recorded.event)).toEqual(appended);
    await first.close();
    const again = await open();
    expect(await again.readAll(0n, 100)).toEqual(before);
    expect(await again.headPosition()).toBe(3n);
    expect((await again.findByDedupKey('k'))?.position).toBe(1n);
    const next = await again.append('s', [event()], 2n);
    expect(next.position).toBe(4n);
    expect((await admin.query(`SELECT version FROM schema_migrations WHERE component = 'event_store'`)).rows).toEqual([{ version: 1 }]);
  });

  it('on a read-only server reads answer, and appends and the write check are refused as read-only storage', async () => {
    const writer = await open();
    await writer.append('s', [event()], 'no_stream');
    await writer.close();
    const url = new URL(database.url);
    url.searchParams.set('options', '-c default_transaction_read_only=on');
    const reader = await PostgresEventStore.open(url.toString());
    opened.push(reader);
    expect(await reader.readStream('s')).toHaveLength(1);
    for (const refused of [() => reader.append('s', [event()], 0n), () => reader.checkWritable()]) {
      expect(storageFaultOf(await refused().catch((error: unknown) => error))).toEqual({ kind: 'read_only', code: '25006' });
    }
  });

  it('answers a server it cannot reach as unreachable storage', async () => {
    const error = await PostgresEventStore.open('postgres://postgres@127.0.0.1:1/none').catch((failure: unknown) => failure);
    expect(storageFaultOf(error)).toEqual({ kind: 'unreachable', code: 'ECONNREFUSED' });
  });
});

/** The server processes LISTENing on the database, of one application if named. */
async function listeners(admin: Client, applicationName?: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND ($1::text IS NULL OR application_name = $1)`,
    [applicationName ?? null],
  );
  return rows.map((row) => row.pid);
}
