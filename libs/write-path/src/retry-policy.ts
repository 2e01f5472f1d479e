import type { Clock } from './clock';

export interface RetrySettings {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Ceiling of the first pause; it doubles with every failed attempt ... */
  baseDelayMs: number;
  /** ... up to this. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { attempts: 20, baseDelayMs: 2, maxDelayMs: 200 };

export const RETRY_POLICY = Symbol('RETRY_POLICY');

/**
 * The one retry policy of the write path: exponential backoff with full
 * jitter (a pause drawn between 0 and the doubling ceiling), so writers that
 * collided do not collide again in lockstep.
 */
export class RetryPolicy {
  constructor(
    private readonly clock: Clock,
    readonly settings: RetrySettings = DEFAULT_RETRY,
    private readonly random: () => number = Math.random,
  ) {}

  /** The pause after `failed` failed attempts. */
  pause(failed: number): Promise<void> {
    const { baseDelayMs, maxDelayMs } = this.settings;
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (failed - 1));
    return this.clock.sleep(this.random() * ceiling);
  }

  /** Runs `attempt` until it succeeds or throws what `retryOn` refuses; after the last attempt its error stands. */
  async run<T>(attempt: () => Promise<T>, retryOn: (error: unknown) => boolean): Promise<T> {
    for (let failed = 1; ; failed++) {
      try {
        return await attempt();
      } catch (error) {
        if (!retryOn(error) || failed >= this.settings.attempts) throw error;
        await this.pause(failed);
      }
    }
  }
}
