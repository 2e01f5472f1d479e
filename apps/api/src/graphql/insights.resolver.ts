import { Args, GraphQLISODateTime, Query, Resolver } from '@nestjs/graphql';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import { RequireRole } from '../auth/access.decorators';
import { IncidentMetricsService } from '../insights/incident-metrics.service';
import { GqlPrincipal } from './graphql-context';
import { parseIncidentMetricsArgs } from './incident-metrics.args';
import { MetricsGroup, MetricsGrouping } from './insights.types';

@Resolver()
export class InsightsResolver {
  constructor(private readonly metrics: IncidentMetricsService) {}

  @Query(() => [MetricsGroup], {
    description: 'Response metrics of the incidents declared in [from, to) that the caller may see, grouped and sorted by key (null last); at most 366 days. Needs timeline.reader',
  })
  @RequireRole(TIMELINE_ROLES.reader)
  async incidentMetrics(
    @Args('from', { type: () => GraphQLISODateTime }) from: Date,
    @Args('to', { type: () => GraphQLISODateTime }) to: Date,
    @Args('groupBy', { type: () => MetricsGrouping, nullable: true, defaultValue: MetricsGrouping.NONE }) groupBy: MetricsGrouping | null,
    @GqlPrincipal() caller: Principal,
  ): Promise<MetricsGroup[]> {
    const groups = await this.metrics.groups(caller, parseIncidentMetricsArgs(from, to, groupBy));
    return groups.map(({ time_to_acknowledge, time_to_resolve, ...counts }) => ({ ...counts, timeToAcknowledge: time_to_acknowledge, timeToResolve: time_to_resolve }));
  }
}
