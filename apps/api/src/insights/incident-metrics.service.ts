import { Inject, Injectable } from '@nestjs/common';
import { IncidentVisibility, type Principal } from '@im/access';
import { metricsGroups, type MetricsGroup } from '@im/incidents';
import { INCIDENT_METRICS_QUERIES, type IncidentMetricsQueries, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';
import type { MetricsRequest } from './incident-metrics.query';

/** Answers kept at once; a dashboard asks few distinct windows, and each answer is a handful of groups. */
const KEPT_ANSWERS = 64;

/**
 * The response metrics as the caller may see them (docs/api.md, "Insights: response metrics"); REST and GraphQL
 * both read through it. A window over a year of incidents costs a few hundred milliseconds to fold, so an answer is
 * kept while no facts of an incident the caller may see change (`lastChange`) and the service names it shows are the same; it is keyed by
 * everything it depends on, the visibility levels the caller's clearance covers among them, so no caller is ever
 * answered what another may see. Asking the same at once waits for the one fold in flight.
 */
@Injectable()
export class IncidentMetricsService {
  private readonly answers = new Map<string, Promise<MetricsGroup[]>>();

  constructor(
    @Inject(INCIDENT_METRICS_QUERIES) private readonly metrics: IncidentMetricsQueries,
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    private readonly visibility: IncidentVisibility,
  ) {}

  async groups(caller: Principal, request: MetricsRequest): Promise<MetricsGroup[]> {
    const { from, to, groupBy } = request;
    const visibleLevels = [...this.visibility.levelsFor(caller)].sort();
    // The facts' version is read before the facts, so an answer is never kept under a version newer than what it read.
    const [lastChange, services] = await Promise.all([this.metrics.lastChange(visibleLevels), groupBy === 'service' ? this.oncall.services.list() : []]);
    const names = new Map(services.map((service) => [service.id, service.name]));
    const key = JSON.stringify([String(lastChange), from, to, groupBy, visibleLevels, [...names]]);
    const kept = this.answers.get(key);
    if (kept) {
      // Most recently used last, so the oldest is the one let go.
      this.answers.delete(key);
      this.answers.set(key, kept);
      return kept;
    }
    // A service deleted since keeps its incidents apart under its id (docs/api.md).
    const answer = this.metrics.factsIn({ from, to, visibleLevels }).then((facts) => metricsGroups(facts, groupBy, (id) => names.get(id) ?? id));
    this.answers.set(key, answer);
    // A failed read is not kept: the next request reads again.
    answer.catch(() => this.answers.delete(key));
    if (this.answers.size > KEPT_ANSWERS) this.answers.delete(this.answers.keys().next().value as string);
    return answer;
  }
}
