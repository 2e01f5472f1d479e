/** When a failed delivery is tried again, and when it is given up. */
export interface RetryScheduleOptions {
  /** The first pause (docs/api.md, "Webhooks": 5 s). */
  initialMs: number;
  /** How long after the first attempt retries go on (WEBHOOK_RETRY_HOURS). */
  windowMs: number;
  /** ±jitter around each pause, as a fraction (0.2: ±20 %), so endpoints that failed together are not retried together. */
  jitter?: number;
  /** The longest single pause; the window still ends the retries. */
  maxDelayMs?: number;
}

const HOUR_MS = 3_600_000;
/** Doublings past which any first pause exceeds every maxDelayMs: it keeps the power finite, not a knob. */
const MAX_DOUBLINGS = 40;

/**
 * Exponential backoff with jitter and a cap: the pause after the n-th failure
 * is initial·2^(n-1), ±jitter, at most maxDelayMs; no retry starts beyond the
 * window. One policy for every outbound channel.
 */
export class RetrySchedule {
  private readonly jitter: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly options: RetryScheduleOptions,
    private readonly random: () => number = Math.random,
  ) {
    this.jitter = options.jitter ?? 0.2;
    this.maxDelayMs = options.maxDelayMs ?? 6 * HOUR_MS;
  }

  /** The pause after `failures` failed attempts (1 for the first), or undefined when the retries are over. */
  nextDelayMs(failures: number, firstAttemptAt: number, now: number): number | undefined {
    const base = Math.min(this.options.initialMs * 2 ** Math.min(failures - 1, MAX_DOUBLINGS), this.maxDelayMs);
    const delay = Math.round(base * (1 + this.jitter * (2 * this.random() - 1)));
    return now + delay - firstAttemptAt > this.options.windowMs ? undefined : delay;
  }
}
