import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@im/cloudevents';
import { CHAINS, chainsOf, linkHash, storedCommittedForm, type LedgerRecord } from '@im/ledger-proof';
import { DuplicateEventError, type EventStore, type RecordedEvent, WrongExpectedRevisionError } from './event-store.port';

export interface EventStoreHarness {
  /** Opens a store on the harness's backing data; a second call opens the same data again (a restart). */
  open(): Promise<EventStore>;
  /** Frees the backing data. */
  dispose(): Promise<void>;
}

const event = (type = 'im.test.happened', data: Record<string, unknown> = {}): CloudEvent => ({
  specversion: '1.0',
  id: randomUUID(),
  source: 'im://contract-test',
  type,
  time: new Date().toISOString(),
  data,
});

/** Every stream the suite writes starts with this: a store that reads back only named prefixes is given this one. */
export const CONTRACT_STREAM_PREFIX = 'contract-';

/** Waits until `predicate` holds for what the subscription delivered. */
async function eventually(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Every link of every chain of a stream recomputed from its events and their salts; throws at the first that does not hold. */
export function expectChained(read: RecordedEvent[]): void {
  const heads: Record<string, { n: number; hash: string } | undefined> = {};
  for (const recorded of read) {
    const ledger = recorded.ledger as LedgerRecord;
    const committed = storedCommittedForm(recorded.event as unknown as Record<string, unknown>, ledger.salts);
    for (const chain of CHAINS) {
      const before = heads[chain];
      if (chainsOf(recorded.event as unknown as Record<string, unknown>).includes(chain)) {
        const n = (before?.n ?? 0) + 1;
        expect(ledger.heads[chain]).toEqual({ n, hash: linkHash(chain, n, before?.hash ?? null, committed) });
      } else expect(ledger.heads[chain]).toEqual(before);
      heads[chain] = ledger.heads[chain];
    }
  }
}

/**
 * The behaviour every EventStore adapter must show. Tests use their own
 * stream names and filter the global log to them, so the suite can run
 * against a shared server.
 */
export function describeEventStoreContract(adapter: string, makeHarness: () => EventStoreHarness): void {
  describe(`EventStore contract: ${adapter}`, () => {
    let harness: EventStoreHarness;
    let store: EventStore;
    let stream: string;
    const opened: EventStore[] = [];

    const open = async () => {
      const s = await harness.open();
      opened.push(s);
      return s;
    };

    beforeEach(async () => {
      harness = makeHarness();
      store = await open();
      stream = `${CONTRACT_STREAM_PREFIX}${randomUUID()}`;
    });

    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await harness.dispose();
    });

    const ownEvents = (events: RecordedEvent[], ...streams: string[]) =>
      events.filter((e) => streams.includes(e.streamId));

    it('reports itself writable without writing anything', async () => {
      const head = await store.headPosition();
      await store.checkWritable();
      expect(await store.headPosition()).toBe(head);
    });

    it('reads an unknown stream as empty', async () => {
      expect(await store.readStream(stream)).toEqual([]);
    });

    it('appends to a new stream and reads the events back in order with revisions from 0', async () => {
      const first = event('im.test.first', { n: 1 });
      const second = event('im.test.second', { n: 2 });
      const result = await store.append(stream, [first, second], 'no_stream');
      expect(result.nextExpectedRevision).toBe(1n);

      const read = await store.readStream(stream);
      expect(read.map((r) => r.event)).toEqual([first, second]);
      expect(read.map((r) => r.revision)).toEqual([0n, 1n]);
      expect(read.every((r) => r.streamId === stream)).toBe(true);
      expect(read[1].position).toBe(result.position);
      expect(read[0].position < read[1].position).toBe(true);
      // Incidents are dated with it (created_at, updated_at): RFC 3339 UTC with fractional seconds.
      expect(read[0].recordedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    });

    it('answers the appended events, where it does, exactly as a read gives them', async () => {
      await store.append(stream, [event('im.test.0')], 'no_stream');
      const result = await store.append(stream, [event('im.test.1'), event('im.test.2')], 0n);
      if (result.recorded) expect(result.recorded).toEqual(await store.readStream(stream, 1n));
    });

    it('answers reads of many streams made at once, each from its own revision', async () => {
      await store.append(`${stream}-a`, [event('im.test.a0'), event('im.test.a1')], 'no_stream');
      await store.append(`${stream}-b`, [event('im.test.b0')], 'no_stream');
      const reads = await Promise.all([
        store.readStream(`${stream}-a`, 1n),
        store.readStream(`${stream}-b`),
        store.readStream(`${stream}-a`),
        store.readStream(`${stream}-c`),
        store.findByDedupKey(`none:${stream}`),
      ]);
      expect(reads.slice(0, 4).map((read) => (read as RecordedEvent[]).map((r) => r.event.type))).toEqual([['im.test.a1'], ['im.test.b0'], ['im.test.a0', 'im.test.a1'], []]);
      expect(reads[4]).toBeUndefined();
    });

    it('reads a stream from a revision on', async () => {
      await store.append(stream, [event('im.test.0'), event('im.test.1'), event('im.test.2')], 'no_stream');
      expect((await store.readStream(stream, 1n)).map((r) => r.event.type)).toEqual(['im.test.1', 'im.test.2']);
      expect(await store.readStream(stream, 3n)).toEqual([]);
    });

    it('appends at the expected revision and refuses a stale one with a typed error, writing nothing', async () => {
      await store.append(stream, [event()], 'no_stream');
      const next = await store.append(stream, [event()], 0n);
      expect(next.nextExpectedRevision).toBe(1n);

      const stale = store.append(stream, [event('im.test.lost')], 0n);
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(stream, [event('im.test.lost')], 'no_stream')).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      const types = (await store.readStream(stream)).map((r) => r.event.type);
      expect(types).not.toContain('im.test.lost');
      expect(types).toHaveLength(2);
    });

    it('honours stream_exists and any', async () => {
      await expect(store.append(stream, [event()], 'stream_exists')).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
      await store.append(stream, [event()], 'any');
      await store.append(stream, [event()], 'stream_exists');
      await store.append(stream, [event()], 'any');
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it('lets exactly one of many concurrent appends at the same revision win', async () => {
      await store.append(stream, [event()], 'no_stream');
      const attempts = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.append(stream, [event('im.test.race', { i })], 0n)),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      attempts
        .filter((a): a is PromiseRejectedResult => a.status === 'rejected')
        .forEach((a) => expect(a.reason).toBeInstanceOf(WrongExpectedRevisionError));
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('does not let a conflicting append fail the appends made at the same moment to other streams', async () => {
      const other = `${stream}-other`;
      await store.append(stream, [event()], 'no_stream');
      const [conflict, fine] = await Promise.allSettled([
        store.append(stream, [event()], 'no_stream'),
        store.append(other, [event()], 'no_stream'),
      ]);
      expect(conflict.status).toBe('rejected');
      expect(fine.status).toBe('fulfilled');
      expect(await store.readStream(other)).toHaveLength(1);
    });

    it('reads the whole log in commit order from a position, in pages', async () => {
      const before = await store.headPosition();
      const a = `${stream}-a`;
      const b = `${stream}-b`;
      await store.append(a, [event('im.test.1')], 'no_stream');
      await store.append(b, [event('im.test.2'), event('im.test.3')], 'no_stream');
      await store.append(a, [event('im.test.4')], 0n);

      const all = ownEvents(await store.readAll(before, 1000), a, b);
      expect(all.map((e) => e.event.type)).toEqual(['im.test.1', 'im.test.2', 'im.test.3', 'im.test.4']);
      expect(await store.headPosition()).toBe(all[3].position);

      const firstPage = ownEvents(await store.readAll(before, 2), a, b);
      expect(firstPage.length).toBeLessThanOrEqual(2);
      const rest = ownEvents(await store.readAll(all[1].position, 1000), a, b);
      expect(rest.map((e) => e.event.type)).toEqual(['im.test.3', 'im.test.4']);
    });

    it('delivers the log to a subscriber from a position, then follows new appends', async () => {
      await store.append(stream, [event('im.test.old')], 'no_stream');
      const from = await store.headPosition();
      await store.append(stream, [event('im.test.caught-up')], 0n);

      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll(from, async (batch) => {
        seen.push(...ownEvents(batch, stream));
      });
      try {
        await eventually(() => seen.length === 1);
        await store.append(stream, [event('im.test.live')], 1n);
        await eventually(() => seen.length === 2);
        expect(seen.map((e) => e.event.type)).toEqual(['im.test.caught-up', 'im.test.live']);
      } finally {
        await subscription.stop();
      }
    });

    it('redelivers a batch whose handler failed, so nothing is skipped', async () => {
      const from = await store.headPosition();
      await store.append(stream, [event('im.test.retry')], 'no_stream');
      let calls = 0;
      const delivered: string[] = [];
      const subscription = store.subscribeToAll(from, async (batch) => {
        const own = ownEvents(batch, stream);
        if (own.length && calls++ === 0) throw new Error('projection hiccup');
        delivered.push(...own.map((e) => e.event.type));
      });
      try {
        await eventually(() => delivered.length > 0, 10_000);
        expect(delivered).toEqual(['im.test.retry']);
      } finally {
        await subscription.stop();
      }
    });

    it('records dedup keys with an append and finds the event by them', async () => {
      const key = `origin:${stream}`;
      expect(await store.findByDedupKey(key)).toBeUndefined();
      const first = event('im.test.keyed');
      await store.append(stream, [first], 'no_stream', { dedupKeys: [key, `id:${stream}`] });
      expect((await store.findByDedupKey(key))?.event).toEqual(first);
      expect((await store.findByDedupKey(`id:${stream}`))?.streamId).toBe(stream);
    });

    it('refuses an append whose dedup key is taken, naming the first event and writing nothing', async () => {
      const key = `origin:${stream}`;
      const first = event('im.test.first');
      await store.append(stream, [first], 'no_stream', { dedupKeys: [key] });
      const other = `${stream}-other`;
      const again = store.append(other, [event('im.test.again')], 'no_stream', { dedupKeys: ['fresh', key] });
      await expect(again).rejects.toBeInstanceOf(DuplicateEventError);
      await again.catch((error: DuplicateEventError) => expect(error.existing.event).toEqual(first));
      expect(await store.readStream(other)).toEqual([]);
      expect(await store.findByDedupKey('fresh')).toBeUndefined();
      // Also when the revision is stale: the re-sent event is a duplicate, not a conflict.
      await expect(store.append(stream, [event('im.test.again')], 'no_stream', { dedupKeys: [key] })).rejects.toBeInstanceOf(DuplicateEventError);
    });

    it('lets exactly one of many concurrent appends with the same dedup key through', async () => {
      const key = `origin:${stream}`;
      const attempts = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) => store.append(`${stream}-${i}`, [event()], 'no_stream', { dedupKeys: [key] })),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      attempts
        .filter((a): a is PromiseRejectedResult => a.status === 'rejected')
        .forEach((a) => expect(a.reason).toBeInstanceOf(DuplicateEventError));
    });

    it('appends to several streams as one, each part at its revision and with its own dedup keys', async () => {
      const other = `${stream}-other`;
      await store.append(stream, [event('im.test.first')], 'no_stream');
      const [a, b] = await store.appendMulti([
        { streamId: stream, events: [event('im.test.a')], expected: 0n },
        { streamId: other, events: [event('im.test.b1'), event('im.test.b2')], expected: 'no_stream', dedupKeys: [`key:${other}`] },
      ]);
      expect([a.nextExpectedRevision, b.nextExpectedRevision]).toEqual([1n, 1n]);
      expect(b.position).toBeGreaterThan(a.position);
      expect((await store.readStream(stream)).map((r) => r.event.type)).toEqual(['im.test.first', 'im.test.a']);
      const written = await store.readStream(other);
      expect(written.map((r) => r.event.type)).toEqual(['im.test.b1', 'im.test.b2']);
      expect(written[1].position).toBe(b.position);
      expectChained(written);
      expect((await store.findByDedupKey(`key:${other}`))?.streamId).toBe(other);
    });

    it('writes no part of an append to several streams when one part is refused', async () => {
      const other = `${stream}-other`;
      await store.append(stream, [event()], 'no_stream', { dedupKeys: [`key:${stream}`] });
      const stale = store.appendMulti([
        { streamId: other, events: [event('im.test.lost')], expected: 'no_stream', dedupKeys: [`fresh:${other}`] },
        { streamId: stream, events: [event('im.test.lost')], expected: 'no_stream' },
      ]);
      await expect(stale).rejects.toMatchObject({ constructor: WrongExpectedRevisionError, streamId: stream });
      const taken = store.appendMulti([
        { streamId: other, events: [event('im.test.lost')], expected: 'no_stream' },
        { streamId: `${stream}-third`, events: [event('im.test.lost')], expected: 'no_stream', dedupKeys: [`key:${stream}`] },
      ]);
      await expect(taken).rejects.toBeInstanceOf(DuplicateEventError);
      expect(await store.readStream(other)).toEqual([]);
      expect(await store.readStream(`${stream}-third`)).toEqual([]);
      expect(await store.findByDedupKey(`fresh:${other}`)).toBeUndefined();
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('refuses up front an append to several streams that names a stream twice or gives one dedup key to two parts, writing nothing', async () => {
      const other = `${stream}-other`;
      const twice = store.appendMulti([
        { streamId: stream, events: [event('im.test.lost')], expected: 'no_stream' },
        { streamId: stream, events: [event('im.test.lost')], expected: 'any' },
      ]);
      await expect(twice).rejects.toThrow('A stream is named twice in one append');
      const shared = store.appendMulti([
        { streamId: stream, events: [event('im.test.lost')], expected: 'no_stream', dedupKeys: [`key:${stream}`] },
        { streamId: other, events: [event('im.test.lost')], expected: 'no_stream', dedupKeys: [`key:${stream}`] },
      ]);
      await expect(shared).rejects.toThrow('A dedup key is given to two parts of one append');
      expect(await store.readStream(stream)).toEqual([]);
      expect(await store.readStream(other)).toEqual([]);
      expect(await store.findByDedupKey(`key:${stream}`)).toBeUndefined();
    });

    it('lets exactly one of many concurrent appends to the same new streams through', async () => {
      const other = `${stream}-other`;
      const attempts = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.appendMulti([
            { streamId: other, events: [event('im.test.claim', { i })], expected: 'no_stream' },
            { streamId: `${stream}-${i}`, events: [event('im.test.opened', { i })], expected: 'no_stream' },
          ]),
        ),
      );
      expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      const [claim] = await store.readStream(other);
      const opened = await Promise.all(Array.from({ length: 10 }, (_, i) => store.readStream(`${stream}-${i}`)));
      expect(opened.flat().map((r) => r.event.data)).toEqual([claim.event.data]);
    });

    it('keeps every acknowledged append when opened again', async () => {
      const appended = [event('im.test.a'), event('im.test.b')];
      await store.append(stream, appended, 'no_stream');
      await store.close();
      const reopened = await open();
      expect((await reopened.readStream(stream)).map((r) => r.event)).toEqual(appended);
      await expect(reopened.append(stream, [event()], 'no_stream')).rejects.toBeInstanceOf(
        WrongExpectedRevisionError,
      );
    });

    it('stores each event with a salt per redactable member and its link in every chain that holds it, and answers the heads', async () => {
      expect(await store.ledgerHeads(stream)).toEqual({});
      const secret = { ...event('im.test.a', { content: 'secret', severity: 'SEV-2' }), 'im.actor': 'ann', 'im.visibility': 'public' } as CloudEvent;
      await store.append(stream, [secret, event('im.test.b')], 'no_stream');
      await store.append(stream, [{ ...event('im.test.c'), 'im.visibility': 'confidential' } as CloudEvent], 1n);
      const read = await store.readStream(stream);
      expect(Object.keys(read[0].ledger!.salts)).toEqual(['/data/content', '/im.actor']);
      for (const salt of Object.values(read[0].ledger!.salts)) expect(Buffer.from(salt, 'base64url')).toHaveLength(16);
      expect(read[2].ledger!.heads).toMatchObject({ public: { n: 1 }, internal: { n: 2 }, restricted: { n: 2 }, confidential: { n: 3 } });
      expectChained(read);
      expect(await store.ledgerHeads(stream)).toEqual(read[2].ledger!.heads);
      expect((await store.readStream(stream, 2n))[0].ledger).toEqual(read[2].ledger);
    });

    it('chains concurrent appends at any, and goes on from the last links when opened again', async () => {
      await Promise.all(Array.from({ length: 8 }, (_, i) => store.append(stream, [event(`im.test.${i}`)], 'any')));
      await store.close();
      const reopened = await open();
      await reopened.append(stream, [event('im.test.after')], 7n);
      const read = await reopened.readStream(stream);
      expect(read.map((r) => r.ledger!.heads.internal!.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expectChained(read);
    });

    it('keeps dedup keys when opened again', async () => {
      await store.append(stream, [event()], 'no_stream', { dedupKeys: [`origin:${stream}`] });
      await store.close();
      const reopened = await open();
      await expect(
        reopened.append(`${stream}-2`, [event()], 'no_stream', { dedupKeys: [`origin:${stream}`] }),
      ).rejects.toBeInstanceOf(DuplicateEventError);
    });
  });
}
