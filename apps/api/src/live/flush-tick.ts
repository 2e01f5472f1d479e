/**
 * At least this long between two writes to one subscriber: the events of that
 * time go out together, one system call for several, at the price of this
 * much delay (an event after a quiet spell goes out at once). A write to a
 * local socket costs about as much as the TCP delivery it triggers, so with
 * 1,000 subscribers the cost of live delivery is this tick's rate, nearly
 * whatever the rate of events.
 */
const COALESCE_MS = 50;
/** A flush may take this share of the time at most: when writing out one tick takes longer (a loaded machine), ticks are spaced out further, */
const FLUSH_SHARE = 0.25;
/** but never by more than this, well within what LIVE_QUEUE_LIMIT events take to arrive at hundreds a second. */
const MAX_TICK_MS = 200;

/**
 * One flush tick shared by every live subscriber of the process, not a timer
 * each: the subscribers with something to send wait for it, then write. With
 * 1,000 streams and an event every few ms, per-stream timers (and the promises
 * raced against them) cost more than the writes.
 */
class FlushTick {
  private next?: Promise<void>;
  private last = 0;
  /** How long the last tick's writes took (the microtasks it resumed). */
  private flushMs = 0;

  wait(): Promise<void> {
    if (!this.next) {
      const delay = this.last + Math.min(MAX_TICK_MS, Math.max(COALESCE_MS, this.flushMs / FLUSH_SHARE)) - performance.now();
      const tick = new Promise<void>((resolve) => {
        const fire = () => {
          this.next = undefined;
          const start = (this.last = performance.now());
          resolve();
          // Queued behind every writer's continuation: it runs once they have all written.
          void tick.then(() => (this.flushMs = performance.now() - start));
        };
        // After a quiet spell, at the end of this turn: every stream the batch reached writes in the same tick.
        if (delay > 0) setTimeout(fire, delay);
        else setImmediate(fire);
      });
      this.next = tick;
    }
    return this.next;
  }
}

/** The process's tick, shared by the SSE streams and the graphql-ws sockets. */
export const flushTick = new FlushTick();
