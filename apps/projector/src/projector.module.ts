import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@im/config';
import { PersistenceModule, ProjectionsModule, type Stores } from '@im/persistence';
import { PolicyModule } from '@im/access';
import { NotificationDeliveryModule, WebhookDeliveryModule } from '@im/outbound';
import { TimersModule } from '@im/paging';

@Module({})
export class ProjectorModule {
  /**
   * `run` needs the projection workers, and delivers webhooks and notifications and runs the escalation timers where they run
   * (the api then runs neither); `rebuild` replays by itself and must not start them.
   */
  static forRoot(config: AppConfig, stores: Stores, runWorkers: boolean): DynamicModule {
    return {
      module: ProjectorModule,
      imports: [PersistenceModule.forRoot(config, stores), ...(runWorkers ? [ProjectionsModule, PolicyModule, WebhookDeliveryModule, NotificationDeliveryModule, TimersModule] : [])],
    };
  }
}
