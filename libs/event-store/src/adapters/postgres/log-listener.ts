import type { Pool, PoolClient } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';

/** Pause before listening again once the connection was lost: doubles from the first to the last, back to the first once listening. */
const RELISTEN_DELAY_MS = { first: 100, max: 5000 } as const;

export interface LogListenerOptions {
  pool: Pool;
  /** A channel name as written in LISTEN (an identifier, not quoted). */
  channel: string;
  /** A notification on the channel, with its payload. */
  heard: (payload: string) => void;
  /** Listening, at first or again: what was notified while not listening is lost, so the caller looks for it. */
  listening: () => void;
  onError?: (error: unknown) => void;
}

/**
 * LISTEN on a connection of the pool held for as long as the listener runs.
 * A connection lost (a server restart, pg_terminate_backend, the network) is
 * replaced after a growing pause; a connection that listened never goes back
 * to the pool.
 */
export class LogListener {
  private readonly stopping = new AbortController();
  private readonly running: Promise<void>;

  constructor(private readonly options: LogListenerOptions) {
    this.running = this.run();
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    let pause: number = RELISTEN_DELAY_MS.first;
    while (!signal.aborted) {
      let client: PoolClient | undefined;
      let stopped: (() => void) | undefined;
      try {
        client = await this.options.pool.connect();
        const connection = client;
        // Resolves when the connection ends or fails, or the listener stops; an error unlistened-for would end the process.
        const lost = new Promise<unknown>((resolve) => {
          connection.on('error', resolve);
          connection.once('end', () => resolve(undefined));
          stopped = () => resolve(undefined);
          signal.addEventListener('abort', stopped);
          if (signal.aborted) resolve(undefined);
        });
        connection.on('notification', ({ channel, payload }) => {
          if (channel === this.options.channel) this.options.heard(payload ?? '');
        });
        if (!signal.aborted) {
          await connection.query(`LISTEN ${this.options.channel}`);
          pause = RELISTEN_DELAY_MS.first;
          this.options.listening();
        }
        const error = await lost;
        if (error !== undefined && !signal.aborted) this.options.onError?.(error);
      } catch (error) {
        if (!signal.aborted) this.options.onError?.(error);
      } finally {
        if (stopped) signal.removeEventListener('abort', stopped);
        client?.release(true);
      }
      await sleep(pause, undefined, { signal }).catch(() => undefined);
      pause = Math.min(pause * 2, RELISTEN_DELAY_MS.max);
    }
  }

  /** Stops listening and gives the connection up. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }
}
