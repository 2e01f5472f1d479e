import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudEvent } from '@im/cloudevents';
import { type EventStore, WrongExpectedRevisionError } from '@im/event-store';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { ConflictError } from '@im/incidents';
import type { Clock } from './clock';
import { CommandHandler, StreamTakenError } from './command-handler';
import { randomIds } from './id-generator';
import type { ReadYourWrites } from './read-your-writes';
import { RetryPolicy } from './retry-policy';
import { userStreamWrites, type WriteModel } from './write-models';

/** A command that decides as the test says. */
interface Decide {
  decide: (state: string[]) => CloudEvent[];
}
const decided = (decide: Decide['decide']): Decide => ({ decide });

/** A stream (named by its key) whose state is the list of its events' ids. */
const ids: WriteModel<Decide, string[], CloudEvent> = {
  decider: { stream: { subject: 'list', streamId: (key) => key }, initialState: [], decide: (command, state) => command.decide(state), evolve: (state, event) => [...state, event.id] },
  read: ({ event }) => event,
};
const stored = { envelope: (event: CloudEvent) => event };
const noWait = { waitFor: async () => undefined } as unknown as ReadYourWrites;

let sequence = 0;
const event = (id = `e${++sequence}`): CloudEvent => ({ specversion: '1.0', id, source: 'im://test', type: 'test.happened', time: '2026-11-22T00:00:00Z' });

/** A clock that never waits: it records the pauses asked for. */
const fakeClock = () => {
  const pauses: number[] = [];
  const clock: Clock = { now: () => new Date('2026-11-22T00:00:00Z'), sleep: async (ms) => void pauses.push(ms) };
  return { clock, pauses };
};

let dir: string;
let store: EventStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'im-handler-'));
  store = new SqliteEventStore(join(dir, 'events.sqlite'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A handler whose jitter always draws the top of the range, so each pause is the backoff ceiling. */
const handlerWith = (attempts = 20) => {
  const { clock, pauses } = fakeClock();
  const policy = new RetryPolicy(clock, { attempts, baseDelayMs: 10, maxDelayMs: 35 }, () => 1);
  return { handler: new CommandHandler(store, clock, policy, randomIds, noWait), pauses };
};

/** Another process appends to the stream right before each of our appends (the first `times`). */
const racedBy = (streamId: string, times = Infinity) => {
  const append = store.append.bind(store);
  let raced = 0;
  return jest.spyOn(store, 'append').mockImplementation(async (id, events, expected, options) => {
    if (id === streamId && raced++ < times) {
      const [last] = (await store.readStream(id)).slice(-1);
      await append(id, [event(`foreign-${raced}`)], last ? last.revision : 'no_stream');
    }
    return append(id, events, expected, options);
  });
};

describe('CommandHandler', () => {
  it('decides again on fresh state after a conflict, pausing as the retry policy says', async () => {
    const { handler, pauses } = handlerWith();
    await store.append('list-1', [event('first')], 'no_stream');
    racedBy('list-1', 1);
    const seen: string[][] = [];
    const handled = await handler.execute(ids, 'list-1', decided((state) => {
      seen.push(state);
      return [event('mine')];
    }), stored);
    expect(seen).toEqual([['first'], ['first', 'foreign-1']]);
    expect(handled.state).toEqual(['first', 'foreign-1', 'mine']);
    expect(handled.appended.map((e) => e.id)).toEqual(['mine']);
    expect(pauses).toEqual([10]);
  });

  it('gives up after the policy’s attempts with a ConflictError, the pauses doubling up to the ceiling', async () => {
    const { handler, pauses } = handlerWith(4);
    racedBy('list-2');
    const attempt = handler.execute(ids, 'list-2', decided(() => [event()]), stored);
    await expect(attempt).rejects.toThrow(ConflictError);
    await expect(attempt).rejects.toThrow('The list changed while the request was decided; retry it');
    expect(pauses).toEqual([10, 20, 35]);
  });

  it('appends writes that arrive during an append together, each decided on the state the earlier ones leave', async () => {
    const { handler } = handlerWith();
    const append = jest.spyOn(store, 'append');
    const written = await Promise.all(
      ['a', 'b', 'c'].map((id) => handler.execute(ids, 'list-3', decided((state) => (state.includes(id) ? [] : [event(id)])), stored)),
    );
    // The first write went alone; the two that queued behind it in one call, at the revision after it.
    expect(append.mock.calls.map(([, events, expected]) => [events.map((e) => e.id), expected])).toEqual([
      [['a'], 'no_stream'],
      [['b', 'c'], 0n],
    ]);
    expect(written.map((w) => w.state)).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
    expect(written[2].position).toBeGreaterThan(written[1].position);
  });

  it('decides a write queued behind an append in flight when its turn comes, not when it arrived (a command given as a function)', async () => {
    const { handler } = handlerWith();
    const order: string[] = [];
    const append = store.append.bind(store);
    jest.spyOn(store, 'append').mockImplementation(async (...args) => {
      const appended = await append(...args);
      order.push(`appended ${args[1].length}`);
      return appended;
    });
    const first = handler.execute(ids, 'list-9', decided(() => [event()]), stored);
    const queued = handler.execute(ids, 'list-9', (key) => {
      order.push(`command on ${key}`);
      return decided(() => [event()]);
    }, stored);
    await Promise.all([first, queued]);
    expect(order).toEqual(['appended 1', 'command on list-9', 'appended 1']);
  });

  it('decides each write on its own model’s state when two models write one stream at once', async () => {
    const { handler, pauses } = handlerWith();
    /** The same stream folded as a count of its events. */
    const counts: WriteModel<Decide, number, CloudEvent> = {
      decider: { stream: { subject: 'count', streamId: (key) => key }, initialState: 0, decide: (command, state) => command.decide([String(state)]), evolve: (state) => state + 1 },
      read: ({ event }) => event,
    };
    await store.append('list-10', [event('first')], 'no_stream');
    const seen: unknown[] = [];
    const listed = handler.execute(ids, 'list-10', decided((state) => (seen.push(state), [event('listed')])), stored);
    const counted = handler.execute(counts, 'list-10', decided((state) => (seen.push(state), [event('counted')])), stored);
    const [{ state: list }, { state: count }] = await Promise.all([listed, counted]);
    // The second model's write is decided on its own fold of the stream, and meets the first one's append as a conflict.
    expect(seen).toEqual([['first'], ['1'], ['2']]);
    expect(pauses).toHaveLength(1);
    expect(list).toEqual(['first', 'listed']);
    expect(count).toBe(3);
  });

  it('answers "no change" with the current state and appends nothing', async () => {
    const { handler } = handlerWith();
    await store.append('list-4', [event('only')], 'no_stream');
    const append = jest.spyOn(store, 'append');
    const handled = await handler.execute(ids, 'list-4', decided(() => []), stored);
    expect(handled).toMatchObject({ state: ['only'], appended: [] });
    expect(append).not.toHaveBeenCalled();
  });

  it('passes a refusal of the decision to its caller, untried again', async () => {
    const { handler, pauses } = handlerWith();
    const refusal = new ConflictError('no');
    await expect(handler.execute(ids, 'list-5', decided(() => { throw refusal; }), stored)).rejects.toBe(refusal);
    expect(pauses).toEqual([]);
  });

  it('draws another id when the drawn one names a stream that exists', async () => {
    const { handler, pauses } = handlerWith();
    await store.append('list-taken', [event()], 'no_stream');
    const draws = ['taken', 'free'];
    const decisions: string[] = [];
    const handled = await handler.execute(ids, () => `list-${draws.shift() as string}`, (key) => decided(() => {
      decisions.push(key);
      return [event(`opened-${key}`)];
    }), stored);
    expect(handled).toMatchObject({ key: 'list-free', state: ['opened-list-free'] });
    expect(decisions).toEqual(['list-free']);
    expect(pauses).toEqual([10]);
  });

  it('stops drawing after the policy’s attempts', async () => {
    const { handler } = handlerWith(2);
    await store.append('list-taken', [event()], 'no_stream');
    await expect(handler.execute(ids, () => 'list-taken', decided(() => [event()]), stored)).rejects.toThrow(StreamTakenError);
  });

  it('appends commands on several streams as one: where one stream moved since it was read, neither is written, and the loop decides again', async () => {
    const { handler, pauses } = handlerWith();
    await store.append('list-claims', [event('c0')], 'no_stream');
    const stale = await handler.current(ids, 'list-claims');
    await store.append('list-claims', [event('foreign')], 0n);
    const both = (base: typeof stale) => [
      { model: ids, key: 'list-claims', command: decided(() => [event()]), base, ...stored },
      { model: ids, key: 'list-opened', command: decided(() => [event('opened')]), ...stored },
    ];
    await expect(handler.together(both(stale))).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store.readStream('list-opened')).toEqual([]);
    let attempts = 0;
    const { written } = await handler.run('list', async () => {
      const together = await handler.together(both(attempts++ === 0 ? stale : await handler.current(ids, 'list-claims')));
      return { written: together, position: together[1].position };
    });
    expect(attempts).toBe(2);
    expect(pauses).toEqual([10]);
    expect(written.map((w) => (w.state as string[]).length)).toEqual([3, 1]);
    expect(written[1].position).toBeGreaterThan(written[0].position);
  });

  it('answers a command once the read models show its write, or at once when told not to wait', async () => {
    const waited: bigint[] = [];
    const { clock } = fakeClock();
    const views = { waitFor: async (position: bigint) => void waited.push(position) } as unknown as ReadYourWrites;
    const handler = new CommandHandler(store, clock, new RetryPolicy(clock), randomIds, views);
    const { position } = await handler.execute(ids, 'list-7', decided(() => [event()]), stored);
    await handler.execute(ids, 'list-7', decided(() => [event()]), { ...stored, wait: false });
    expect(waited).toEqual([position]);
  });

  it('runs several writes without their waits, then waits once for the highest position; a failure answers them all, unwaited', async () => {
    const waited: bigint[] = [];
    const { clock } = fakeClock();
    const views: ReadYourWrites = { waitFor: async (position) => void waited.push(position) };
    const handler = new CommandHandler(store, clock, new RetryPolicy(clock), randomIds, views);
    const write = (key: string) => handler.execute(ids, key, decided(() => [event()]), { ...stored, wait: false });
    const answers = await handler.all([write('list-11'), write('list-12'), write('list-11')]);
    expect(waited).toEqual([answers.map((a) => a.position).reduce((a, b) => (a > b ? a : b))]);
    const refused = new Error('refused');
    await expect(handler.all([write('list-13'), Promise.reject(refused), Promise.reject(new Error('later'))])).rejects.toBe(refused);
    expect(waited).toHaveLength(1);
  });

  it('decides preferences and push subscriptions of one responder, written at once, each on the whole stream', async () => {
    const { handler } = handlerWith();
    const service = { envelope: handler.serviceEnvelope('ana') };
    const subscription = { id: 'ps_1', endpoint: 'https://push.example/1', keys: { p256dh: 'k', auth: 'a' }, clearance: 'public' };
    await handler.execute(userStreamWrites, 'ana', { kind: 'update', update: { severityFilter: ['SEV-1'], channels: ['email'] }, email: 'ana@example.com' }, service);
    const [subscribed, updated] = await Promise.all([
      handler.execute(userStreamWrites, 'ana', { kind: 'subscribe', ...subscription }, service),
      handler.execute(userStreamWrites, 'ana', { kind: 'update', update: { pushEnabled: false } }, service),
    ]);
    expect(subscribed.state.subscriptions.has('ps_1')).toBe(true);
    expect(updated.state.preferences).toEqual({ pushEnabled: false, severityFilter: ['SEV-1'], quietHours: null, channels: ['email'], email: 'ana@example.com' });
    const [, removed] = await Promise.all([
      handler.execute(userStreamWrites, 'ana', { kind: 'update', update: { channels: ['push'] } }, service),
      handler.execute(userStreamWrites, 'ana', { kind: 'unsubscribe', id: 'ps_1', reason: 'unregistered' }, service),
    ]);
    expect(removed.state.subscriptions.size).toBe(0);
    expect(removed.state.preferences.channels).toEqual(['push']);
  });

  it('reads no event it folded before, nor the ones it appended (the store answers them)', async () => {
    const { handler } = handlerWith();
    for (let i = 0; i < 50; i++) await handler.execute(ids, 'list-6', decided(() => [event()]), stored);
    const readStream = jest.spyOn(store, 'readStream');
    await handler.execute(ids, 'list-6', decided(() => [event()]), stored);
    const read = await Promise.all(readStream.mock.results.map((r) => r.value as Promise<unknown[]>));
    expect(read.reduce((sum, events) => sum + events.length, 0)).toBe(0);
  });
});
