import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@im/config';
import { PersistenceModule, ProjectionsModule, type Stores } from '@im/persistence';

@Module({})
export class ProjectorModule {
  /** `run` needs the projection workers; `rebuild` replays by itself and must not start them. */
  static forRoot(config: AppConfig, stores: Stores, runWorkers: boolean): DynamicModule {
    return { module: ProjectorModule, imports: [PersistenceModule.forRoot(config, stores), ...(runWorkers ? [ProjectionsModule] : [])] };
  }
}
