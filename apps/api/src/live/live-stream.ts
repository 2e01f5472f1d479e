/** A subscriber fell further behind than LIVE_QUEUE_LIMIT events (or SEND_BUFFER_LIMIT_BYTES unsent): it is disconnected and resumes with its last cursor. */
export class SlowConsumerError extends Error {
  constructor(limit: number, unit: 'events' | 'bytes' = 'events') {
    super(`The subscriber fell more than ${limit} ${unit} behind and was disconnected: reconnect with the id of the last event received`);
  }
}

/**
 * The most a subscriber's socket may hold unsent: writers do not wait for a
 * socket to drain (no promise per subscriber and write), and one that has
 * more than this waiting is cut off as too slow. With the queue's bound
 * (LIVE_QUEUE_LIMIT events, shared objects) this bounds a subscriber's memory in bytes.
 */
export const SEND_BUFFER_LIMIT_BYTES = 1024 * 1024;

/** An item at its log position: a stream skips what it has already passed. */
export interface Positioned<T> {
  position: bigint;
  value: T;
}

/**
 * One subscriber's stream: first the replay (read on demand, so it is paced by
 * the consumer), then the live items the feed offers, each once and in log
 * order. Live items wait in a queue of at most `limit`; one more fails the
 * stream with SlowConsumerError, so memory per subscriber is bounded. `return()`
 * ends it at once, even while a `next()` is waiting, and unsubscribes.
 */
export class LiveStream<T> implements AsyncIterableIterator<T> {
  private readonly queue: Positioned<T>[] = [];
  private waiting?: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void };
  private failure?: unknown;
  private closed = false;

  constructor(
    private readonly limit: number,
    /** Everything up to here has been sent or left out; only later items are yielded. */
    private last: bigint,
    private replay: AsyncIterator<Positioned<T>> | undefined,
    private readonly unsubscribe: () => void,
  ) {}

  /** The feed's delivery of a live item. */
  offer(item: Positioned<T>): void {
    if (this.closed || this.failure !== undefined || item.position <= this.last) return;
    // Someone waits only once the replay is over and the queue is empty.
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      this.last = item.position;
      resolve({ value: item.value, done: false });
      return;
    }
    if (this.queue.length >= this.limit) {
      this.fail(new SlowConsumerError(this.limit));
      return;
    }
    this.queue.push(item);
  }

  /** Ends the stream with an error (after the items already queued are dropped): the consumer's next `next()` rejects. */
  fail(error: unknown): void {
    if (this.closed || this.failure !== undefined) return;
    this.failure = error;
    this.queue.length = 0;
    this.unsubscribe();
    void this.replay?.return?.();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.failure !== undefined) throw this.failure;
    while (this.replay && !this.closed) {
      const replayed = await this.replay.next();
      if (this.failure !== undefined) throw this.failure;
      if (replayed.done) {
        this.replay = undefined;
        break;
      }
      if (replayed.value.position <= this.last) continue;
      this.last = replayed.value.position;
      return { value: replayed.value.value, done: false };
    }
    for (;;) {
      if (this.closed) return { value: undefined, done: true };
      const item = this.queue.shift();
      if (!item) break;
      if (item.position <= this.last) continue;
      this.last = item.position;
      return { value: item.value, done: false };
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The live items already waiting, at once (empty during the replay): a writer sends them in one write, not one each. */
  takeQueued(): T[] {
    if (this.replay || this.closed || this.failure !== undefined) return [];
    const taken: T[] = [];
    for (const item of this.queue.splice(0)) {
      if (item.position <= this.last) continue;
      this.last = item.position;
      taken.push(item.value);
    }
    return taken;
  }

  /** Ends the stream and unsubscribes (client gone, GraphQL `complete`, shutdown). */
  async return(): Promise<IteratorResult<T>> {
    if (!this.closed) {
      this.closed = true;
      this.queue.length = 0;
      if (this.failure === undefined) this.unsubscribe();
      void this.replay?.return?.();
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.resolve({ value: undefined, done: true });
    }
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
