import { liveTrace } from './live-trace';
import { type EventLoopUtilization, type EventLoopUtilityFunction as EventLoopUtilizer, performance } from 'node:perf_hooks';

/**
 * At least this long between two writes to one subscriber: the events of that
 * time go out together, one system call for several, at the price of this
 * much delay (an event after a quiet spell goes out at once). A write to a
 * local socket costs about as much as the TCP delivery it triggers, so with
 * 1,000 subscribers the cost of live delivery is this tick's rate, nearly
 * whatever the rate of events (docs/benchmarks.md, "Live delivery"; it trades
 * latency for CPU linearly).
 */
const MIN_TICK_MS = 40;
/** Never further apart than this, well within what LIVE_QUEUE_LIMIT events take to arrive at hundreds a second. */
const MAX_TICK_MS = 250;
/**
 * The share of the event loop the flushes may take: what the rest of the
 * process (the appends, the reads) left idle over the last tick, less this
 * headroom, but never less than MIN_SHARE nor more than MAX_SHARE. A busy
 * writer thus gets ticks spaced out (more events per write, fewer writes),
 * an idle one gets them at MIN_TICK_MS.
 */
const HEADROOM = 0.1;
const MIN_SHARE = 0.08;
const MAX_SHARE = 0.5;
/** A flush writes this long at most before it lets the event loop answer requests (setImmediate), then goes on. */
const SLICE_MS = 2;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/**
 * One flush tick shared by every live subscriber of the process, not a timer
 * each: the subscribers with something to send register a write, and the
 * tick runs them. With 1,000 streams and an event every few ms, per-stream
 * timers (and the promises raced against them) cost more than the writes.
 * The writes run in slices of SLICE_MS with the event loop's I/O between
 * them, so that an append never waits behind a whole flush.
 */
export class FlushTick {
  private waiting: (() => void)[] = [];
  private scheduled = false;
  private last = 0;
  /** The event loop's time spent writing in the last tick (ms), and the interval it asks for. */
  private flushMs = 0;
  private intervalMs = MIN_TICK_MS;
  private utilization: EventLoopUtilization;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly loopUtilization: EventLoopUtilizer = (...since) => performance.eventLoopUtilization(...since),
  ) {
    this.utilization = loopUtilization();
  }

  /** How long after a tick the next one comes, as the last tick planned it. */
  get interval(): number {
    return this.intervalMs;
  }

  /** Runs `write` at the next tick (after a quiet spell, at the end of this turn, so that every stream a batch reached writes in the same tick). */
  wait(write: () => void): void {
    this.waiting.push(write);
    if (this.scheduled) return;
    this.scheduled = true;
    const delay = this.last + this.intervalMs - this.now();
    if (delay > 0) setTimeout(() => this.fire(), delay);
    else setImmediate(() => this.fire());
  }

  /** For LIVE_TRACE_FILE: when the tick fired, how many writes it ran, in how many slices. */
  private fireStart = 0;
  private fireCount = 0;
  private slices = 0;
  private fire(): void {
    this.scheduled = false;
    this.fireStart = this.now();
    this.slices = 0;
    this.last = this.now();
    // Writers that register while this tick runs go to the next one.
    const writes = this.waiting;
    this.fireCount = writes.length;
    this.waiting = [];
    this.flushMs = 0;
    this.runSlice(writes, 0);
  }

  private runSlice(writes: (() => void)[], from: number): void {
    const start = this.now();
    let i = from;
    while (i < writes.length) {
      writes[i++]();
      if (this.now() - start >= SLICE_MS) break;
    }
    this.flushMs += this.now() - start;
    this.slices++;
    if (i < writes.length) setImmediate(() => this.runSlice(writes, i));
    else this.plan();
  }

  /** The next interval: the flush takes at most the share of the event loop the rest of the process leaves. */
  private plan(): void {
    const since = this.loopUtilization(this.utilization);
    this.utilization = this.loopUtilization();
    const elapsed = since.idle + since.active;
    const othersShare = elapsed > 0 ? Math.max(0, since.active - this.flushMs) / elapsed : 0;
    const share = clamp(1 - othersShare - HEADROOM, MIN_SHARE, MAX_SHARE);
    this.intervalMs = clamp(this.flushMs / share, MIN_TICK_MS, MAX_TICK_MS);
    if (liveTrace.on) liveTrace.tick([liveTrace.now(), this.fireCount, this.flushMs, this.now() - this.fireStart, this.slices, this.intervalMs, othersShare]);
  }
}

/** The process's tick, shared by the SSE streams and the graphql-ws sockets. */
export const flushTick = new FlushTick();
