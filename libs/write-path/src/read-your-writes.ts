import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { PROJECTION_PROGRESS, type ProjectionProgress } from '@im/read-models';

/**
 * Read-your-writes: a command answers once the read models show the log up
 * to the position its answer rests on, so the caller's next read sees it.
 */
@Injectable()
export class ReadYourWrites {
  constructor(
    @Inject(PROJECTION_PROGRESS) private readonly progress: ProjectionProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Rejects with ProjectionLagError after PROJECTION_WAIT_MS: the write stands, the views are behind. */
  waitFor(position: bigint): Promise<void> {
    return this.progress.waitFor(position, this.config.projectionWaitMs);
  }
}
