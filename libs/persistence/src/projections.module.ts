import { type BeforeApplicationShutdown, Inject, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import {
  ALL_PROJECTIONS,
  CheckpointProgress,
  MAX_FOLD_ATTEMPTS,
  PROJECTION_PROGRESS,
  type ProjectionProgress,
  ProjectionRunner,
  READ_STORE,
  type ReadStore,
} from '@im/read-models';

/** How long a shutdown waits for the read models to reach the head of the log. */
const SHUTDOWN_CATCH_UP_MS = 5000;

/**
 * PROJECTOR=embedded: the projection workers run in this process.
 * PROJECTOR=external: apps/projector runs them, and this process only reads their checkpoints.
 */
@Module({
  providers: [
    {
      provide: PROJECTION_PROGRESS,
      inject: [EVENT_STORE, READ_STORE, APP_CONFIG],
      useFactory: (eventStore: EventStore, readStore: ReadStore, config: AppConfig): ProjectionProgress => {
        if (config.projector === 'external') return new CheckpointProgress(readStore, ALL_PROJECTIONS.map((p) => p.name));
        const logger = new Logger('Projections');
        return new ProjectionRunner(eventStore, readStore, ALL_PROJECTIONS, {
          onRetry: (projection, error) => logger.error(`Projection ${projection} failed and will retry: ${String(error)}`),
          onFault: (fault) =>
            logger.error(
              `Projection ${fault.projection} skipped event ${fault.eventId} (position ${fault.position}, stream ${fault.streamId}) ` +
                `after ${MAX_FOLD_ATTEMPTS} attempts and recorded it as a projection fault: ${fault.error}`,
            ),
        });
      },
    },
  ],
  exports: [PROJECTION_PROGRESS],
})
export class ProjectionsModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.progress instanceof ProjectionRunner) await this.progress.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!(this.progress instanceof ProjectionRunner)) return;
    // Fold everything the log holds before the stores close, so a restart begins caught up.
    await this.progress.catchUp(SHUTDOWN_CATCH_UP_MS).catch((error: unknown) => new Logger('Projections').warn(String(error)));
    await this.progress.stop();
  }
}
