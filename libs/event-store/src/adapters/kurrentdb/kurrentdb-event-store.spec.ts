import { type KurrentDBClient, NO_STREAM, WrongExpectedVersionError } from '@kurrent/kurrentdb-client';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CloudEvent } from '@im/cloudevents';
import { CONTRACT_STREAM_PREFIX, describeEventStoreContract } from '../../event-store.contract';
import { DuplicateEventError, type RecordedEvent, WrongExpectedRevisionError } from '../../event-store.port';
import { KurrentDbStandIn } from './kurrentdb-client.stand-in';
import { dedupStreamId, KurrentDbEventStore, RESUBSCRIBE_DELAY_MS } from './kurrentdb-event-store';

// The whole EventStore contract, through the real adapter, on a stand-in that keeps the server's documented semantics
// (the same suite runs against a real KurrentDB in CI: test/contracts, KURRENTDB_URL).
describeEventStoreContract('kurrentdb adapter on an in-memory KurrentDB stand-in', () => {
  const server = new KurrentDbStandIn();
  return {
    open: async () => new KurrentDbEventStore(server.client(), { streamPrefixes: [CONTRACT_STREAM_PREFIX] }),
    dispose: async () => undefined,
  };
});

const event = (id: string): CloudEvent => ({ specversion: '1.0', id, source: 'im://test', type: 'im.test', time: '2026-11-22T00:00:00Z' });

/** A client whose subscriptions end (or fail) by themselves, counting the calls; the 51st and later stay open. */
function droppingClient(end: (subscription: Readable) => void) {
  const calls: number[] = [];
  const client = {
    subscribeToAll: () => {
      calls.push(Date.now());
      const subscription = Object.assign(new Readable({ objectMode: true, read: () => undefined }), { unsubscribe: async () => undefined });
      if (calls.length <= 50) end(subscription);
      return subscription;
    },
    dispose: async () => undefined,
  };
  return { client: client as unknown as KurrentDBClient, calls };
}

describe('KurrentDB adapter, at the client method boundary', () => {
  let server: KurrentDbStandIn;
  let store: KurrentDbEventStore;

  beforeEach(() => {
    server = new KurrentDbStandIn();
    store = new KurrentDbEventStore(server.client(), { streamPrefixes: ['incident-'] });
  });
  afterEach(() => store.close());

  it('appends with dedup keys in one multiStreamAppend: each key a reservation at no_stream with a fresh event id, then the events at the expected state', async () => {
    await store.append('incident-a', [event('e1')], 'no_stream', { dedupKeys: ['origin:1', 'id:e1'] });
    expect(server.multiStreamAppends).toHaveLength(1);
    const [requests] = server.multiStreamAppends;
    expect(requests.map((request) => [request.streamName, request.expectedState])).toEqual([
      [dedupStreamId('origin:1'), 'no_stream'],
      [dedupStreamId('id:e1'), 'no_stream'],
      ['incident-a', 'no_stream'],
    ]);

    // A second claim of the key sends another reservation id, so the server answers a conflict, not an idempotent success.
    const again = store.append('incident-b', [event('e2')], 'no_stream', { dedupKeys: ['origin:1'] });
    await expect(again).rejects.toBeInstanceOf(DuplicateEventError);
    await again.catch((error: DuplicateEventError) => expect(error.existing.event.id).toBe('e1'));
    expect(server.multiStreamAppends[1][0].events[0].id).not.toBe(requests[0].events[0].id);
    expect(await store.readStream('incident-b')).toEqual([]);
  });

  it('refuses a keyed append at a stale revision with WrongExpectedRevisionError, and leaves its keys free', async () => {
    await store.append('incident-a', [event('e1')], 'no_stream');
    const stale = store.append('incident-a', [event('e2')], 'no_stream', { dedupKeys: ['origin:2'] });
    await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    // Nothing written, not even the reservation: no window in which the key is taken by an event that does not exist.
    expect(server.log).toHaveLength(1);
    expect(await store.findByDedupKey('origin:2')).toBeUndefined();
    await store.append('incident-a', [event('e2')], 0n, { dedupKeys: ['origin:2'] });
    expect((await store.findByDedupKey('origin:2'))?.revision).toBe(1n);
  });

  it('passes on, as the server reported it, a conflict on a stream the append did not name', async () => {
    const conflict = new WrongExpectedVersionError(undefined, { streamName: 'incident-elsewhere', expected: NO_STREAM, current: 3n });
    const client = server.client();
    client.multiStreamAppend = async () => Promise.reject(conflict);
    const answering = new KurrentDbEventStore(client, { streamPrefixes: ['incident-'] });
    await expect(answering.appendMulti([{ streamId: 'incident-a', events: [event('e1')], expected: 'no_stream', dedupKeys: ['origin:1'] }])).rejects.toBe(conflict);
  });

  it('returns the position the log reports for a keyed append', async () => {
    await store.append('incident-a', [event('e1')], 'no_stream');
    const result = await store.append('incident-a', [event('e2'), event('e3')], 0n, { dedupKeys: ['origin:3'] });
    const all = await store.readAll(0n, 10);
    expect(result).toEqual({ nextExpectedRevision: 2n, position: all[all.length - 1].position });
  });

  it('reads back the streams under the prefixes it was given, and nothing else', async () => {
    const other = new KurrentDbEventStore(server.client(), { streamPrefixes: ['contract-'] });
    await store.append('incident-a', [event('e1')], 'no_stream');
    const mine = await other.append('contract-x', [event('e2')], 'no_stream');
    await store.append('incident-b', [event('e3')], 'no_stream', { dedupKeys: ['origin:4'] });

    expect((await other.readAll(0n, 10)).map((recorded) => recorded.streamId)).toEqual(['contract-x']);
    expect(await other.headPosition()).toBe(mine.position);
    expect((await store.readAll(0n, 10)).map((recorded) => recorded.streamId)).toEqual(['incident-a', 'incident-b']);
    const seen: string[] = [];
    const subscription = other.subscribeToAll(0n, async (batch) => void seen.push(...batch.map((recorded) => recorded.streamId)));
    await sleep(50);
    await subscription.stop();
    expect(seen).toEqual(['contract-x']);
    await other.close();
  });

  it('proves it is writable without writing: an append at stream_exists to a stream that never exists', async () => {
    await store.append('incident-a', [event('e1')], 'no_stream');
    const before = server.log.length;
    await store.checkWritable();
    await store.checkWritable();
    expect(server.log.length).toBe(before);
  });

  it('reports a refused write probe for any other reason', async () => {
    const client = { appendToStream: async () => Promise.reject(new Error('not leader')), dispose: async () => undefined };
    const refusing = new KurrentDbEventStore(client as unknown as KurrentDBClient, { streamPrefixes: ['incident-'] });
    await expect(refusing.checkWritable()).rejects.toThrow('not leader');
  });

  it('hands the handler everything the subscription has buffered in one call', async () => {
    await store.append('incident-a', [event('e1'), event('e2')], 'no_stream');
    await store.append('incident-b', [event('e3')], 'no_stream');
    const calls: RecordedEvent[][] = [];
    const subscription = store.subscribeToAll(0n, async (batch) => void calls.push(batch));
    await sleep(50);
    await subscription.stop();
    expect(calls.map((batch) => batch.map((recorded) => recorded.event.id))).toEqual([['e1', 'e2', 'e3']]);
  });

  it('waits before resubscribing when the server ends the call, longer each time', async () => {
    const { client, calls } = droppingClient((subscription) => subscription.push(null));
    const dropping = new KurrentDbEventStore(client, { streamPrefixes: ['incident-'] });
    dropping.subscribeToAll(0n, async () => undefined);
    await sleep(450);
    await dropping.close();
    // 0, 100 and 300 ms: the next would come at 700.
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(4);
    expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(RESUBSCRIBE_DELAY_MS.first - 5);
    if (calls.length > 2) expect(calls[2] - calls[1]).toBeGreaterThanOrEqual(2 * RESUBSCRIBE_DELAY_MS.first - 5);
  });

  it('stops resubscribing once the store is closed', async () => {
    const errors: unknown[] = [];
    const { client, calls } = droppingClient((subscription) => setTimeout(() => subscription.destroy(new Error('connection dropped')), 10));
    const dropping = new KurrentDbEventStore(client, { streamPrefixes: ['incident-'] });
    dropping.subscribeToAll(0n, async () => undefined, (error) => errors.push(error));
    await sleep(60);
    await dropping.close();
    const atClose = calls.length;
    await sleep(1300);
    expect(calls.length).toBe(atClose);
    expect(errors.length).toBeGreaterThan(0);
  });
});
