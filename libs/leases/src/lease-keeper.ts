import { setTimeout as sleep } from 'node:timers/promises';
import type { Fence, LeaseHolder, LeaseStore } from '@im/read-models';
import { holderIsGone } from './lease-holder';

/** Work run by one process at a time: started when its lease is won, stopped when it is lost or at shutdown. */
export interface LeasedWork {
  start(): Promise<void>;
  /** `lost`: another process may hold the lease already, writes under it are refused (stop at once); `shutdown`: finish cleanly. */
  stop(why: 'lost' | 'shutdown'): Promise<void>;
}

export interface LeaseTimings {
  /** A lease not renewed for this long lapses (the database's clock). */
  ttlMs: number;
  /** How often the holder renews it. */
  renewMs: number;
  /** How often a process that does not hold it tries to take it. */
  retryMs: number;
}

/**
 * A holder's death is noticed within ttlMs + retryMs (12 s: the contract allows 15);
 * a holder renews five times per lease, so a few slow renewals do not lose it.
 */
export const LEASE_TIMINGS: LeaseTimings = { ttlMs: 10_000, renewMs: 2_000, retryMs: 2_000 };

/** A holder stops its work this long before the lease would lapse by its own clock, so it never works on past the lapse. */
const SAFETY_MARGIN_MS = 1_000;

interface FirstTry {
  resolve(): void;
  reject(error: unknown): void;
}

export interface KeeperLog {
  won(name: string, generation: number): void;
  lost(name: string, why: string): void;
  error(what: string, error: unknown): void;
}

/**
 * Competes for leases in the store and runs each one's work while this
 * process holds it: renews it, and stops the work as soon as a renewal is
 * refused or its own clock says the lease may have lapsed. The store fences
 * the work's writes, for a process paused past that point (docs/decisions.md, "Leases").
 */
export class LeaseKeeper {
  private readonly closing = new AbortController();
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly store: LeaseStore,
    readonly holder: LeaseHolder,
    private readonly log: KeeperLog,
    private readonly timings: LeaseTimings = LEASE_TIMINGS,
  ) {}

  /**
   * Competes for `name` from now until close, running `work` whenever it is held. Resolves once the
   * first try is over (the work started, or another process holds the lease); rejects when the work
   * fails to start on that first try, so a process that cannot do its work does not start at all.
   */
  hold(name: string, work: LeasedWork): Promise<void> {
    return new Promise((resolve, reject) => this.loops.push(this.compete(name, work, { resolve, reject })));
  }

  /** Stops every work this process runs and gives its leases up, so others take them at once. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all(this.loops.splice(0));
  }

  private async compete(name: string, work: LeasedWork, first: FirstTry): Promise<void> {
    const signal = this.closing.signal;
    let firstTry: FirstTry | undefined = first;
    while (!signal.aborted) {
      const asked = performance.now();
      const fence = await this.take(name);
      if (fence && signal.aborted) {
        await this.store.release(fence, this.holder).catch(() => undefined);
      } else if (fence) {
        const started = await this.run(fence, work, asked, firstTry);
        // A work that cannot start on the first try fails the process's start: it competes no more.
        if (!started && firstTry) return;
      }
      firstTry?.resolve();
      firstTry = undefined;
      // A little jitter, so processes started together do not ask in step.
      await this.pause(this.timings.retryMs + Math.random() * 250);
    }
  }

  /** The lease when it is free, lapsed, or its holder is a process known to be gone; undefined while another holds it. */
  private async take(name: string): Promise<Fence | undefined> {
    try {
      const fence = await this.store.acquire(name, this.holder, this.timings.ttlMs);
      if (fence) return fence;
      const held = (await this.store.list()).find((lease) => lease.name === name);
      if (!held?.holder || !holderIsGone(held.holder, this.holder)) return undefined;
      // Its release, on its behalf: conditional on the generation, so a takeover meanwhile is left alone.
      await this.store.release({ name, generation: held.generation }, held.holder);
      return await this.store.acquire(name, this.holder, this.timings.ttlMs);
    } catch (error) {
      this.log.error(`take the lease ${name}`, error);
      return undefined;
    }
  }

  /** Runs the work while the lease is renewed; `since` is when the lease was asked for, by this process's monotonic clock. */
  /** Answers whether the work started. */
  private async run(fence: Fence, work: LeasedWork, since: number, firstTry?: FirstTry): Promise<boolean> {
    const signal = this.closing.signal;
    let validUntil = since + this.timings.ttlMs - SAFETY_MARGIN_MS;
    this.log.won(fence.name, fence.generation);
    let lost: string | undefined;
    let started = false;
    let startError: unknown;
    try {
      await work.start();
      started = true;
      firstTry?.resolve();
      while (!signal.aborted && lost === undefined) {
        await this.pause(Math.min(this.timings.renewMs, Math.max(0, validUntil - performance.now())));
        if (signal.aborted) break;
        const asked = performance.now();
        const renewed = await this.renewBefore(fence, validUntil);
        if (renewed === true) validUntil = asked + this.timings.ttlMs - SAFETY_MARGIN_MS;
        else if (renewed === false) lost = 'another process holds it now';
        else if (performance.now() >= validUntil) lost = 'it could not be renewed in time';
      }
    } catch (error) {
      lost = `its work failed to start: ${String(error)}`;
      startError = error;
    }
    if (lost !== undefined) this.log.lost(fence.name, lost);
    await work.stop(lost === undefined ? 'shutdown' : 'lost').catch((error: unknown) => this.log.error(`stop the work of ${fence.name}`, error));
    this.store.forget(fence.name);
    // Given up at shutdown, or when the work cannot start here (another process may manage): others need not wait for it to lapse.
    if (lost === undefined || !started) await this.store.release(fence, this.holder).catch((error: unknown) => this.log.error(`release the lease ${fence.name}`, error));
    if (!started) firstTry?.reject(startError);
    return started;
  }

  /** true: renewed; false: refused (lost); undefined: no answer before the lease may lapse (the store slow or away). */
  private async renewBefore(fence: Fence, validUntil: number): Promise<boolean | undefined> {
    const remaining = validUntil - performance.now();
    if (remaining <= 0) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, remaining, undefined)));
    try {
      return await Promise.race([
        this.store.renew(fence, this.holder, this.timings.ttlMs).catch((error: unknown) => {
          this.log.error(`renew the lease ${fence.name}`, error);
          return undefined;
        }),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.closing.signal }).catch(() => undefined);
  }
}
