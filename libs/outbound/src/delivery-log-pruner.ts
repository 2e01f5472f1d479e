import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { OutboundStore } from '@im/read-models';
import { firstAttemptIdAt } from './attempt-ids';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How often the log is pruned (first at start). */
export const PRUNE_EVERY_MS = 60 * 60 * 1000;
/**
 * Attempts one statement removes, with a turn of the event loop between two,
 * so a long backlog (the first pass after an upgrade) never holds up requests
 * for long: about 40 µs of SQLite work per attempt, so 20 ms a statement.
 */
export const PRUNE_BATCH = 500;

/**
 * Keeps a channel's delivery log to DELIVERY_LOG_DAYS: removes the attempts
 * made before then, at start and every hour, for as long as the process
 * delivers. The configuration makes those days longer than the retry window,
 * so no message still being retried loses its first attempt.
 */
export class DeliveryLogPruner {
  private readonly stopping = new AbortController();
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: OutboundStore,
    private readonly channel: string,
    private readonly logDays: number,
    private readonly now: () => number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  /** Removes every attempt older than the log keeps; answers how many. */
  async prune(): Promise<number> {
    const before = firstAttemptIdAt(this.now() - this.logDays * DAY_MS);
    let removed = 0;
    for (;;) {
      const batch = await this.store.pruneAttempts(this.channel, before, PRUNE_BATCH);
      removed += batch;
      if (batch < PRUNE_BATCH || this.stopping.signal.aborted) return removed;
      await nextTurn();
    }
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      await this.prune().catch(this.onError);
      await sleep(PRUNE_EVERY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}
