import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { type DynamicModule, Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import type { AppConfig } from '@im/config';
import { AuthModule } from '../auth/auth.module';
import { RequestAuthenticator } from '../auth/request-authenticator';
import { IncidentQueryService } from '../incidents/incident-query.service';
import { IncidentsModule } from '../incidents/incidents.module';
import { LedgerModule } from '../ledger/ledger.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { PreferencesCommandHandler } from '../preferences/preferences-command.handler';
import { PreferencesQueryService } from '../preferences/preferences-query.service';
import { TimelineModule } from '../timeline/timeline.module';
import { graphqlContextFactory } from './graphql-context';
import { GRAPHQL_PATH } from './graphql-path';
import { IncidentsResolver } from './incidents.resolver';
import { PlaygroundController } from './playground.controller';
import { NotificationsResolver } from './notifications.resolver';
import { PreferencesResolver } from './preferences.resolver';
import { queryLimitsPlugin } from './query-limits.plugin';

/** The responders' API: Apollo on the same Fastify server, schema built from the classes in schema.types.ts. */
@Module({})
export class GraphqlApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GraphqlApiModule,
      imports: [
        IncidentsModule,
        TimelineModule,
        LedgerModule,
        NotificationsModule,
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
            plugins: [queryLimitsPlugin(), ApolloServerPluginCacheControlDisabled()],
          }),
        }),
      ],
      controllers: config.env === 'development' ? [PlaygroundController] : [],
      providers: [IncidentsResolver, PreferencesResolver, PreferencesCommandHandler, PreferencesQueryService, NotificationsResolver],
    };
  }
}
