import {
  type BeforeApplicationShutdown,
  Inject,
  Logger,
  Module,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { ALL_PROJECTIONS, ProjectionRunner, READ_STORE, type ReadStore } from '@im/read-models';

/** Runs the projection workers inside this process, from their checkpoints. */
@Module({
  providers: [
    {
      provide: ProjectionRunner,
      inject: [EVENT_STORE, READ_STORE],
      useFactory: (eventStore: EventStore, readStore: ReadStore) => {
        const logger = new Logger('Projections');
        return new ProjectionRunner(eventStore, readStore, ALL_PROJECTIONS, (projection, error) =>
          logger.error(`Projection ${projection} failed and will retry: ${String(error)}`),
        );
      },
    },
  ],
  exports: [ProjectionRunner],
})
export class ProjectionsModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(ProjectionRunner) private readonly runner: ProjectionRunner) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
