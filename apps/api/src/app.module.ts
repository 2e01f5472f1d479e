import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { AppConfig } from '@im/config';
import { PersistenceModule, ProjectionsModule, type Stores } from '@im/persistence';
import { LeasesModule } from '@im/leases';
import { PolicyModule } from '@im/access';
import { TimersModule } from '@im/paging';
import { TimelineAppendModule } from '@im/timeline-append';
import { HttpErrorFilter } from './errors/http-error.filter';
import { AuthModule } from './auth/auth.module';
import { HealthModule } from './health/health.module';
import { IncidentsModule } from './incidents/incidents.module';
import { TimelineModule } from './timeline/timeline.module';
import { PostmortemModule } from './postmortem/postmortem.module';
import { IntegrationsModule } from './integrations/integrations.module';
import { GraphqlApiModule } from './graphql/graphql.module';
import { DiagnosticsModule } from './diagnostics/diagnostics.module';
import { IntegrationKeysModule } from './integration-keys/integration-keys.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { ConsoleModule } from './console/console.module';
import { LiveModule } from './live/live.module';
import { NotificationsModule } from './notifications/notifications.module';
import { OncallModule } from './oncall/oncall.module';
import { HeartbeatPingsModule } from './heartbeats/heartbeat-pings.module';
import { LeasesApiModule } from './leases/leases.module';
import { InsightsModule } from './insights/insights.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, stores: Stores): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PersistenceModule.forRoot(config, stores),
        LeasesModule.forRoot('api'),
        ProjectionsModule,
        AuthModule,
        PolicyModule,
        HealthModule,
        IncidentsModule,
        TimelineModule,
        PostmortemModule,
        IntegrationsModule,
        IntegrationKeysModule,
        WebhooksModule,
        LiveModule,
        NotificationsModule,
        OncallModule,
        HeartbeatPingsModule,
        LeasesApiModule,
        InsightsModule,
        // The alert write path, global: the timers' HeartbeatsDue records a missed heartbeat through it.
        TimelineAppendModule,
        TimersModule,
        GraphqlApiModule.forRoot(config),
        DiagnosticsModule.forRoot(config),
        ConsoleModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: HttpErrorFilter }],
    };
  }
}
