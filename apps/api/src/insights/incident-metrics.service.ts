import { Inject, Injectable } from '@nestjs/common';
import { IncidentVisibility, type Principal } from '@im/access';
import { metricsGroups, type MetricsGroup } from '@im/incidents';
import { INCIDENT_METRICS_QUERIES, type IncidentMetricsQueries, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';
import type { MetricsRequest } from './incident-metrics.query';

/** The response metrics as the caller may see them (docs/api.md, "Insights: response metrics"); REST and GraphQL both read through it. */
@Injectable()
export class IncidentMetricsService {
  constructor(
    @Inject(INCIDENT_METRICS_QUERIES) private readonly metrics: IncidentMetricsQueries,
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    private readonly visibility: IncidentVisibility,
  ) {}

  async groups(caller: Principal, request: MetricsRequest): Promise<MetricsGroup[]> {
    const { from, to, groupBy } = request;
    const [facts, services] = await Promise.all([
      this.metrics.factsIn({ from, to, visibleLevels: this.visibility.levelsFor(caller) }),
      groupBy === 'service' ? this.oncall.services.list() : [],
    ]);
    const names = new Map(services.map((service) => [service.id, service.name]));
    // A service deleted since keeps its incidents apart under its id (docs/api.md).
    return metricsGroups(facts, groupBy, (id) => names.get(id) ?? id);
  }
}
