import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { type DynamicModule, Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import type { AppConfig } from '@im/config';
import { LedgerModule } from '@im/write-path';
import { IncidentQueryService } from '@im/access';
import { AuthModule } from '../auth/auth.module';
import { RequestAuthenticator } from '../auth/request-authenticator';
import { IncidentsModule } from '../incidents/incidents.module';
import { InsightsModule } from '../insights/insights.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { OncallModule } from '../oncall/oncall.module';
import { PreferencesCommandHandler } from '../preferences/preferences-command.handler';
import { PreferencesQueryService } from '../preferences/preferences-query.service';
import { TimelineModule } from '../timeline/timeline.module';
import { LiveModule } from '../live/live.module';
import { graphqlContextFactory } from './graphql-context';
import { GRAPHQL_PATH } from './graphql-path';
import { GraphqlWsServer } from './graphql-ws.server';
import { IncidentMobileViews } from './incident-mobile-views';
import { InsightsResolver } from './insights.resolver';
import { IncidentsResolver } from './incidents.resolver';
import { LiveResolver } from './live.resolver';
import { PlaygroundController } from './playground.controller';
import { NotificationsResolver } from './notifications.resolver';
import { OncallResolver } from './oncall.resolver';
import { IncidentServiceFields, MobileViewServiceFields } from './incident-service.resolver';
import { PreferencesResolver } from './preferences.resolver';
import { queryLimitsPlugin } from './query-limits.plugin';
import { subscriptionsOverSocketPlugin } from './subscriptions-over-socket.plugin';

/**
 * The responders' API: Apollo on the same Fastify server, schema built from the
 * classes in schema.types.ts; its subscriptions over graphql-ws on the same path
 * (graphql-ws.server.ts).
 */
@Module({})
export class GraphqlApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GraphqlApiModule,
      imports: [
        AuthModule,
        IncidentsModule,
        TimelineModule,
        LedgerModule,
        LiveModule,
        NotificationsModule,
        OncallModule,
        InsightsModule,
        GraphQLModule.forRootAsync<ApolloDriverConfig>({
          driver: ApolloDriver,
          imports: [AuthModule, IncidentsModule],
          inject: [RequestAuthenticator, IncidentQueryService],
          useFactory: (authenticator: RequestAuthenticator, incidents: IncidentQueryService) => ({
            path: GRAPHQL_PATH,
            autoSchemaFile: true,
            sortSchema: false,
            playground: false,
            graphiql: false,
            introspection: true,
            includeStacktraceInErrorResponses: false,
            // Credentials are bearer tokens, never cookies, so a cross-site request cannot carry them:
            // GET ?query= works for any client without Apollo's preflight header.
            csrfPrevention: false,
            context: graphqlContextFactory(authenticator, incidents),
            // No cache hints are used, and the cache-control plugin would wrap every field resolver.
            plugins: [queryLimitsPlugin(), subscriptionsOverSocketPlugin(), ApolloServerPluginCacheControlDisabled()],
          }),
        }),
      ],
      controllers: config.env === 'development' ? [PlaygroundController] : [],
      providers: [
        IncidentsResolver,
        LiveResolver,
        PreferencesResolver,
        PreferencesCommandHandler,
        PreferencesQueryService,
        IncidentMobileViews,
        GraphqlWsServer,
        NotificationsResolver,
        OncallResolver,
        InsightsResolver,
        IncidentServiceFields,
        MobileViewServiceFields,
      ],
    };
  }
}
