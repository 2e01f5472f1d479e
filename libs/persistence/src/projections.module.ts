import { Global, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import {
  ALL_PROJECTIONS,
  CheckpointProgress,
  MAX_FOLD_ATTEMPTS,
  PROJECTION_PROGRESS,
  PROJECTION_STORE,
  PROJECTIONS_LEASE,
  PROJECTION_WORKER,
  type ProjectionProgress,
  ProjectionRunner,
  type ProjectionStore,
  type ProjectionWorker,
} from '@im/read-models';
import { LEASE_KEEPER, type LeaseKeeper } from '@im/leases';
import { READ_YOUR_WRITES, type ReadYourWrites } from '@im/write-path';

/** How long a shutdown waits for the read models to reach the head of the log. */
const SHUTDOWN_CATCH_UP_MS = 5000;

/**
 * PROJECTOR=embedded: the projection worker runs in this process, and is also its progress.
 * PROJECTOR=external: apps/projector runs it; there is no worker here (null), and the
 * progress is read from the checkpoints the projector commits.
 * Global, imported by each app: it also binds the write path's READ_YOUR_WRITES
 * to that progress (the write path does not know the read side).
 */
@Global()
@Module({
  providers: [
    {
      provide: PROJECTION_WORKER,
      inject: [EVENT_STORE, PROJECTION_STORE, APP_CONFIG],
      useFactory: (eventStore: EventStore, store: ProjectionStore, config: AppConfig): ProjectionRunner | null => {
        if (config.projector === 'external') return null;
        const logger = new Logger('Projections');
        return new ProjectionRunner(eventStore, store, ALL_PROJECTIONS, {
          onRetry: (projection, error) => logger.error(`Projection ${projection} failed and will retry: ${String(error)}`),
          onFault: (fault) =>
            logger.error(
              `Projection ${fault.projection} skipped event ${fault.eventId} (position ${fault.position}, stream ${fault.streamId}) ` +
                `after ${MAX_FOLD_ATTEMPTS} attempts and recorded it as a projection fault: ${fault.error}`,
            ),
        });
      },
    },
    {
      provide: PROJECTION_PROGRESS,
      inject: [PROJECTION_WORKER, PROJECTION_STORE],
      useFactory: (runner: ProjectionRunner | null, store: ProjectionStore): ProjectionProgress => {
        const checkpoints = new CheckpointProgress(store, ALL_PROJECTIONS.map((p) => p.name));
        return runner ? new LeasedProgress(runner, checkpoints) : checkpoints;
      },
    },
    {
      provide: READ_YOUR_WRITES,
      inject: [PROJECTION_PROGRESS, APP_CONFIG],
      useFactory: (progress: ProjectionProgress, config: AppConfig): ReadYourWrites => ({ waitFor: (position) => progress.waitFor(position, config.projectionWaitMs) }),
    },
  ],
  exports: [PROJECTION_PROGRESS, PROJECTION_WORKER, READ_YOUR_WRITES],
})
export class ProjectionsModule implements OnApplicationBootstrap {
  constructor(
    @Inject(PROJECTION_WORKER) private readonly worker: ProjectionWorker | null,
    @Inject(LEASE_KEEPER) private readonly keeper: LeaseKeeper,
  ) {}

  /** The projections run where the `projections` lease is held: one process at a time (the keeper stops them at shutdown). */
  async onApplicationBootstrap(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await this.keeper.hold(PROJECTIONS_LEASE, {
      start: () => worker.start(),
      stop: async (why) => {
        // Fold everything the log holds before the stores close, so a restart begins caught up; a lost lease stops at once.
        if (why === 'shutdown') await worker.catchUp(SHUTDOWN_CATCH_UP_MS).catch((error: unknown) => new Logger('Projections').warn(String(error)));
        await worker.stop();
      },
    });
  }
}

/**
 * The progress of an api that competes for the projections: its own runner's
 * while it holds the lease (woken as it applies), else the checkpoints of
 * whichever process holds it.
 */
class LeasedProgress implements ProjectionProgress {
  constructor(
    private readonly runner: ProjectionRunner,
    private readonly checkpoints: CheckpointProgress,
  ) {}

  waitFor(position: bigint, timeoutMs: number): Promise<void> {
    return this.runner.running ? this.runner.waitFor(position, timeoutMs) : this.checkpoints.waitFor(position, timeoutMs);
  }

  appliedPosition(): Promise<bigint> {
    return this.runner.running ? this.runner.appliedPosition() : this.checkpoints.appliedPosition();
  }
}
