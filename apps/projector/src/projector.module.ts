import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@im/config';
import { PersistenceModule } from '@im/persistence';

@Module({})
export class ProjectorModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ProjectorModule, imports: [PersistenceModule.forRoot(config)] };
  }
}
