import { Inject, Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore, type Subscription } from '@im/event-store';
import { SERVICE_ASSIGNED_TYPE } from '@im/incidents';
import { PROJECTION_PROGRESS, type ProjectionProgress, TIMERS_LEASE } from '@im/read-models';
import { LEASE_KEEPER, type LeaseKeeper } from '@im/leases';
import { CLOCK, type Clock } from '@im/write-path';
import type { DueSource } from './due-work';
import { EscalationsDue } from './escalations-due';
import { HeartbeatsDue } from './heartbeats-due';

/** The longest a pass waits for the next: the contract's 5 s for a due escalation, with room for the pass itself (docs/decisions.md). */
export const TIMER_POLL_MS = 1000;

/**
 * Due work fired together: each item is one incident's append, and appends in
 * flight together share the store's commit and sync. One at a time, 1,000
 * escalations due at one instant (a restart past their due times) took 6.1 s
 * to page, each waiting for the sync before it (docs/benchmarks.md, "Paging").
 */
export const FIRED_TOGETHER = 32;

/**
 * Fires timed work in one process at a time (its lease): a pass every TIMER_POLL_MS, and one as
 * soon as the read models show an incident that opened with a service (its
 * first page is due at once). Each pass asks every source what is due now
 * and fires it; a failure is logged and the next pass finds the work again.
 * The first pass, at start, fires what fell due while the service was down.
 */
@Injectable()
export class TimerRunner implements OnApplicationBootstrap {
  private readonly logger = new Logger('Timers');
  private readonly sources: DueSource[];
  private subscription?: Subscription;
  private running?: Promise<void>;
  private stopped = false;
  private wakeUp?: () => void;
  private woken = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(CLOCK) private readonly clock: Clock,
    escalations: EscalationsDue,
    @Optional() heartbeats?: HeartbeatsDue,
    @Optional() @Inject(LEASE_KEEPER) private readonly keeper?: LeaseKeeper,
  ) {
    this.sources = heartbeats ? [escalations, heartbeats] : [escalations];
  }

  /** Runs in one process at a time, the one holding the timers' lease, among those that run workers (the keeper stops it at shutdown). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.projector === 'embedded') await this.keeper?.hold(TIMERS_LEASE, { start: () => this.start(), stop: () => this.stop() });
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.stopped = false;
    this.subscription = this.eventStore.subscribeToAll(await this.eventStore.headPosition(), async (events) => {
      const opened = events.filter(({ event }) => event.type === SERVICE_ASSIGNED_TYPE);
      if (opened.length === 0) return;
      // Woken once the read models show the incident; not awaited, so the subscription is never held up.
      this.progress.waitFor(opened[opened.length - 1].position, this.config.projectionWaitMs).then(() => this.wake(), () => this.wake());
    });
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.subscription?.stop();
    await this.running;
    this.running = undefined;
  }

  /** One pass: every source's due work, FIRED_TOGETHER items at a time. */
  async pass(): Promise<void> {
    for (const source of this.sources) {
      const work = await source.due(this.clock.now()).catch((error: unknown) => {
        this.logger.error(`Could not read the due ${source.name}, will try again: ${String(error)}`);
        return [];
      });
      for (let i = 0; i < work.length; i += FIRED_TOGETHER) {
        if (this.stopped) return;
        await Promise.all(
          work.slice(i, i + FIRED_TOGETHER).map((item) => item.fire().catch((error: unknown) => this.logger.error(`Could not fire ${item.key}, will try again: ${String(error)}`))),
        );
      }
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.pass();
      await this.nap();
    }
  }

  /** Real time, not the injected clock: the cadence of passes is this process's, whatever time the clock tells. */
  private nap(): Promise<void> {
    if (this.woken || this.stopped) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeUp?.(), TIMER_POLL_MS);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }

  /** Ends the nap now, or the next one before it starts. */
  private wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }
}
