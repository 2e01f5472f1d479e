import type { AttemptHistory, MessageOfTarget, NewDeliveryAttempt, OutboundProgress, OutboundStore } from '@im/read-models';

/** How often what the consumers did is committed: what a kill -9 may make them deliver again. */
const FLUSH_EVERY_MS = 100;

/**
 * Gathers every consumer's attempts and checkpoint moves and commits them
 * together, a few times a second: one store write for a hundred consumers
 * instead of one per delivery. A crash loses at most the last interval, which
 * is then delivered again (at least once, never skipped).
 */
export class OutboundJournal {
  private pending = new Map<string, OutboundProgress>();
  /** The batch being committed: its attempts count in a history until the store has them. */
  private inFlight?: Map<string, OutboundProgress>;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  /** Resolved when what was pending at the time they were added is committed. */
  private waiting: (() => void)[] = [];

  constructor(
    private readonly store: OutboundStore,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  record(consumer: string, attempt: NewDeliveryAttempt): void {
    this.progressOf(consumer).attempts.push(attempt);
  }

  /** The consumer is done with every event up to `position`. */
  advance(consumer: string, position: bigint): void {
    this.progressOf(consumer).position = position;
  }

  /**
   * How often the consumer's message was tried, and when first: the store's
   * log (attempts before a restart included) with what is not committed yet.
   */
  async history(consumer: string, message: MessageOfTarget): Promise<AttemptHistory | undefined> {
    const stored = await this.store.history(message);
    const uncommitted = [this.pending.get(consumer), this.inFlight?.get(consumer)].flatMap((progress) => progress?.attempts ?? []).filter((made) => made.messageId === message.messageId);
    const times = [...(stored ? [stored.firstAttemptedAt] : []), ...uncommitted.map((made) => made.attemptedAt)].sort();
    return times.length === 0 ? undefined : { attempts: (stored?.attempts ?? 0) + uncommitted.length, firstAttemptedAt: times[0] };
  }

  /** Resolves once everything recorded so far is committed (a re-send is marked done only then). */
  committed(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * Commits what is pending; one commit at a time, in order. When the batch
   * fails, each consumer's part is committed alone: one that cannot be
   * committed is put back and tried again, and holds up no other consumer.
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.pending;
      const waiting = this.waiting;
      this.pending = new Map();
      this.waiting = [];
      this.inFlight = batch;
      try {
        const failed = await this.commit([...batch.values()]);
        if (failed.length === 0) waiting.forEach((resolve) => resolve());
        else this.putBack(failed, waiting);
      } finally {
        this.inFlight = undefined;
      }
    });
    return this.flushing;
  }

  /** The parts that could not be committed. */
  private async commit(batch: OutboundProgress[]): Promise<OutboundProgress[]> {
    if (batch.length === 0) return [];
    try {
      await this.store.commit(batch);
      return [];
    } catch (error) {
      if (batch.length === 1) {
        this.onError(error);
        return batch;
      }
      const failed: OutboundProgress[] = [];
      for (const progress of batch) failed.push(...(await this.commit([progress])));
      return failed;
    }
  }

  private putBack(failed: OutboundProgress[], waiting: (() => void)[]): void {
    this.waiting.unshift(...waiting);
    for (const progress of failed) {
      const later = this.pending.get(progress.consumer);
      this.pending.set(progress.consumer, { consumer: progress.consumer, position: later?.position ?? progress.position, attempts: [...progress.attempts, ...(later?.attempts ?? [])] });
    }
  }

  private progressOf(consumer: string): OutboundProgress {
    let progress = this.pending.get(consumer);
    if (!progress) {
      progress = { consumer, attempts: [] };
      this.pending.set(consumer, progress);
    }
    return progress;
  }
}
