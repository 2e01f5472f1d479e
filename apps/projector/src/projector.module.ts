import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@im/config';
import { PersistenceModule, ProjectionsModule, type Stores } from '@im/persistence';
import { PolicyModule } from '@im/access';
import { NotificationDeliveryModule, WebhookDeliveryModule } from '@im/outbound';
import { TimersModule } from '@im/paging';
import { TimelineAppendModule } from '@im/timeline-append';
import { LeasesModule } from '@im/leases';

@Module({})
export class ProjectorModule {
  /**
   * `run` needs the projection workers, and delivers webhooks and notifications and runs the timers where they run
   * (the api then runs neither): the escalations, and missed heartbeats, recorded through the alert write path
   * (TimelineAppendModule binds ALERT_RECORDER); `rebuild` replays by itself and must not start them.
   */
  static forRoot(config: AppConfig, stores: Stores, runWorkers: boolean): DynamicModule {
    return {
      module: ProjectorModule,
      imports: [PersistenceModule.forRoot(config, stores), ...(runWorkers ? [LeasesModule.forRoot('projector'), ProjectionsModule, PolicyModule, WebhookDeliveryModule, NotificationDeliveryModule, TimelineAppendModule, TimersModule] : [])],
    };
  }
}
