import { getEventListeners } from 'node:events';
import type { RecordedEvent } from './event-store.port';
import { followLog } from './follow-log';

const recorded = (position: number): RecordedEvent => ({
  streamId: 's',
  revision: BigInt(position - 1),
  position: BigInt(position),
  recordedAt: '2026-11-22T00:00:00.000Z',
  event: { specversion: '1.0', id: String(position), source: 'im://test', type: 'im.test', time: '2026-11-22T00:00:00Z' },
});

/** A store that answers at once, as a synchronous SQLite read does. */
const LOG = Array.from({ length: 20_000 }, (_, i) => recorded(i + 1));
const read = async (after: bigint, limit: number) => LOG.filter((e) => e.position > after).slice(0, limit);

describe('followLog', () => {
  it('delivers a long backlog in order while letting timers and I/O run between batches', async () => {
    const delivered: bigint[] = [];
    let deliveredWhenTimerFired = -1;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        deliveredWhenTimerFired = delivered.length;
        resolve();
      }, 0),
    );
    let caughtUp!: () => void;
    const done = new Promise<void>((resolve) => (caughtUp = resolve));
    const subscription = followLog({
      after: 0n,
      read,
      handler: async (batch) => {
        delivered.push(...batch.map((e) => e.position));
        if (delivered.length === LOG.length) caughtUp();
      },
      waitForAppend: () => new Promise((resolve) => setTimeout(resolve, 5)),
    });
    await Promise.all([timer, done]);
    await subscription.stop();
    expect(deliveredWhenTimerFired).toBeGreaterThanOrEqual(0);
    expect(deliveredWhenTimerFired).toBeLessThan(LOG.length);
    expect(delivered).toEqual(LOG.map((e) => e.position));
  });

  it('retries a failed batch from the same position', async () => {
    const delivered: bigint[] = [];
    let failures = 0;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const subscription = followLog({
      after: 19_990n,
      read,
      retryDelayMs: 1,
      handler: async (batch) => {
        if (failures++ < 2) throw new Error('transient');
        delivered.push(...batch.map((e) => e.position));
        done();
      },
      waitForAppend: () => new Promise((resolve) => setTimeout(resolve, 5)),
    });
    await finished;
    await subscription.stop();
    expect(delivered).toEqual(LOG.slice(19_990).map((e) => e.position));
  });
});

describe('followLog retrying a failing handler', () => {
  it('leaves no abort listener behind per retry (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    let listenersWhenRecovered = -1;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    let failures = 0;
    const subscription = followLog({
      after: 19_999n,
      read,
      retryDelayMs: 1,
      handler: async () => {
        if (failures++ < 30) throw new Error('projection cannot fold this event');
      },
      waitForAppend: (_after, signal) => {
        listenersWhenRecovered = getEventListeners(signal, 'abort').length;
        done();
        return new Promise((resolve) => setTimeout(resolve, 5));
      },
    });
    await finished;
    await subscription.stop();
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(failures).toBe(31);
    expect(listenersWhenRecovered).toBe(0);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

describe('followLog stopping', () => {
  it('stops during a handler call once it returns, without waiting for an append that may never come', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const handling = new Promise<void>((resolve) => (finish = resolve));
    const subscription = followLog({
      after: 19_999n,
      read,
      handler: async () => {
        entered();
        await handling;
      },
      // Only an abort ends the wait, as for a store polling rarely.
      waitForAppend: (_after, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
    });
    await inHandler;
    const stopped = subscription.stop();
    finish();
    await stopped;
  });
});
