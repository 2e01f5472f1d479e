/**
 * The ceiling for GraphQL reads: the api's stack (Nest on Fastify, Apollo via
 * @nestjs/apollo, the schema built from the same IncidentSummary class, the
 * cache-control plugin off as in the api) answering `myIncidents` with a
 * constant list of 20 summaries: no authentication, policy, store or limits.
 */
import 'reflect-metadata';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { GraphQLModule, Query, Resolver } from '@nestjs/graphql';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { GRAPHQL_PATH } from '../apps/api/src/graphql/graphql-path';
import { IncidentSummary, Severity, Status } from '../apps/api/src/graphql/schema.types';

const SUMMARIES: IncidentSummary[] = Array.from({ length: 20 }, (_, i) => ({
  id: `INC-${i.toString(16).padStart(8, '0')}`,
  title: `Seeded incident ${i}`,
  severity: Object.values(Severity)[i % 4],
  status: Object.values(Status)[0],
  lastUpdate: new Date(Date.UTC(2026, 0, 1, 0, i)),
}));

@Resolver()
class CeilingResolver {
  @Query(() => [IncidentSummary])
  myIncidents(): IncidentSummary[] {
    return SUMMARIES;
  }
}

@Module({
  imports: [
    GraphQLModule.forRoot<ApolloDriverConfig>({
      driver: ApolloDriver,
      path: GRAPHQL_PATH,
      autoSchemaFile: true,
      playground: false,
      graphiql: false,
      csrfPrevention: false,
      plugins: [ApolloServerPluginCacheControlDisabled()],
    }),
  ],
  providers: [CeilingResolver],
})
class CeilingModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(CeilingModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  console.log(`listening on ${await app.getUrl()}, graphql ceiling`);
}

void main();
