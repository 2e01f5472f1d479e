import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { markApiRunning } from '@im/persistence';

/** Tells `projections:rebuild` that this process is serving the data directory. */
@Injectable()
export class DataDirLockService implements OnApplicationBootstrap, OnApplicationShutdown {
  private release?: () => void;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    // Only the embedded store lives in the data directory; a rebuild of server-backed read models is coordinated by stopping the projector.
    if (this.config.eventStore.kind === 'sqlite') this.release = markApiRunning(this.config.dataDir);
  }

  onApplicationShutdown(): void {
    this.release?.();
  }
}
