import type { EventStore, RecordedEvent, Subscription } from '@im/event-store';

/** The most recent events kept in memory for the consumers that are caught up. */
const RECENT_EVENTS = 10_000;

/**
 * One subscription to the ledger that any number of consumers read from, each
 * at its own position: the recent events come from memory, older ones (a
 * consumer that fell behind, or resumes after a restart) from the store, so
 * a hundred consumers cost one subscription. Listeners see every new event
 * once, in ledger order, before any consumer can read it.
 */
export class LedgerTail {
  private readonly recent: RecordedEvent[] = [];
  private head = 0n;
  /** Memory holds every event after this position (positions need not be contiguous). */
  private heldAfter = 0n;
  private subscription?: Subscription;
  private waiters = new Set<() => void>();
  private readonly listeners: ((events: RecordedEvent[]) => void)[] = [];

  constructor(private readonly eventStore: EventStore) {}

  /** Follows the ledger from its head now; answers that head. */
  async start(onError: (error: unknown) => void): Promise<bigint> {
    this.head = await this.eventStore.headPosition();
    this.heldAfter = this.head;
    this.subscription = this.eventStore.subscribeToAll(this.head, async (events) => this.receive(events), onError);
    return this.head;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.wake();
  }

  /** Called with each batch of new events, in ledger order. */
  listen(listener: (events: RecordedEvent[]) => void): void {
    this.listeners.push(listener);
  }

  /** Up to `limit` events after `after`, in ledger order (empty when none is there yet). */
  async read(after: bigint, limit: number): Promise<RecordedEvent[]> {
    if (after >= this.head) return [];
    if (after < this.heldAfter) return this.eventStore.readAll(after, limit);
    const from = this.indexAfter(after);
    return this.recent.slice(from, from + limit);
  }

  /** Resolves once an event after `after` has arrived, the signal aborts, or `timeoutMs` (when given) has passed. */
  async waitBeyond(after: bigint, signal: AbortSignal, timeoutMs?: number): Promise<void> {
    let timedOut = false;
    while (this.head <= after && !signal.aborted && !timedOut) {
      await new Promise<void>((resolve) => {
        // One timer rather than AbortSignal.timeout and AbortSignal.any per wait: a worker waits once per ledger batch.
        const timer = timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), done()), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private receive(events: RecordedEvent[]): void {
    if (events.length === 0) return;
    this.recent.push(...events);
    if (this.recent.length > RECENT_EVENTS) {
      const dropped = this.recent.splice(0, this.recent.length - RECENT_EVENTS);
      this.heldAfter = dropped[dropped.length - 1].position;
    }
    this.listeners.forEach((listener) => listener(events));
    this.head = events[events.length - 1].position;
    this.wake();
  }

  private wake(): void {
    const waiting = [...this.waiters];
    this.waiters = new Set();
    waiting.forEach((resolve) => resolve());
  }

  /** Index of the first recent event after `after` (binary search: positions increase). */
  private indexAfter(after: bigint): number {
    let low = 0;
    let high = this.recent.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.recent[mid].position <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
