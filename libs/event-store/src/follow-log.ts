import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogHandler, RecordedEvent, Subscription } from './event-store.port';

const BATCH_SIZE = 1000;

export interface FollowLogOptions {
  after: bigint;
  handler: LogHandler;
  onError?: (error: unknown) => void;
  read: (after: bigint, limit: number) => Promise<RecordedEvent[]>;
  /** Resolves when events after `after` may be there (or the signal aborts). */
  waitForAppend: (after: bigint, signal: AbortSignal) => Promise<void>;
  retryDelayMs?: number;
}

/**
 * A catch-up subscription for stores that can be read by position: read
 * batches until the head, then wait for appends. A failing handler is retried
 * from the same position, so delivery is at-least-once and in order.
 */
export function followLog(options: FollowLogOptions): Subscription {
  const { handler, onError, read, waitForAppend } = options;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const stopping = new AbortController();
  let position = options.after;

  const loop = async () => {
    while (!stopping.signal.aborted) {
      try {
        const batch = await read(position, BATCH_SIZE);
        if (stopping.signal.aborted) break;
        if (batch.length > 0) {
          await handler(batch);
          position = batch[batch.length - 1].position;
          // Synchronous stores resolve at once: without this a long catch-up would starve all I/O.
          await new Promise((resolve) => setImmediate(resolve));
          // A short batch was the head when read: wait rather than ask again for what is probably not there.
          if (batch.length === BATCH_SIZE) continue;
        }
        // Stopped while the handler ran: the wait would listen for an abort that has already happened.
        if (stopping.signal.aborted) break;
        await waitForAppend(position, stopping.signal);
      } catch (error) {
        onError?.(error);
        // The timer removes its abort listener when it fires: a handler failing for hours adds none.
        await sleep(retryDelayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  };
  const running = loop();
  return {
    stop: async () => {
      stopping.abort();
      await running;
    },
  };
}

/**
 * A follower's wait when the store's own appends emit `append` on `appended`:
 * the next one, the poll interval (appends of other processes), or the abort,
 * whichever comes first.
 */
export function nextAppendOrPoll(appended: EventEmitter, pollIntervalMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      appended.off('append', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, pollIntervalMs);
    appended.once('append', done);
    signal.addEventListener('abort', done);
  });
}
