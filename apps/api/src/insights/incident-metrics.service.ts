import { Inject, Injectable } from '@nestjs/common';
import { IncidentVisibility, type Principal } from '@im/access';
import { metricsGroups, type MetricsGroup } from '@im/incidents';
import { INCIDENT_METRICS_QUERIES, IncidentFactsIndex, type IncidentMetricsQueries, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';
import type { MetricsRequest } from './incident-metrics.query';

/** Answers kept at once; a dashboard asks few distinct windows, and each answer is a handful of groups. */
const KEPT_ANSWERS = 64;

/** Changes read from the read model at once while the copy catches up: a bound on one read's rows (a start reads every incident). */
const CHANGES_PER_READ = 10_000;

/**
 * The response metrics as the caller may see them (docs/api.md, "Insights: response metrics"); REST and GraphQL
 * both read through it. The `incident_metrics` read model is kept here as a copy in memory, brought up to date with
 * its changes before each answer, so a window is aggregated without reading it from the store. An answer is also
 * kept while no facts of an incident the caller may see change and the service names it shows are the same; it is
 * keyed by everything it depends on, the visibility levels the caller's clearance covers among them, so no caller is
 * ever answered what another may see.
 */
@Injectable()
export class IncidentMetricsService {
  private readonly copy = new IncidentFactsIndex();
  private readonly answers = new Map<string, MetricsGroup[]>();
  private reading?: Promise<void>;
  private readAfterThis?: Promise<void>;

  constructor(
    @Inject(INCIDENT_METRICS_QUERIES) private readonly metrics: IncidentMetricsQueries,
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    private readonly visibility: IncidentVisibility,
  ) {}

  async groups(caller: Principal, request: MetricsRequest): Promise<MetricsGroup[]> {
    const { from, to, groupBy } = request;
    const visibleLevels = [...this.visibility.levelsFor(caller)].sort();
    const [, services] = await Promise.all([this.caughtUp(), groupBy === 'service' ? this.oncall.services.list() : []]);
    const names = new Map(services.map((service) => [service.id, service.name]));
    const key = JSON.stringify([String(this.copy.lastChange(visibleLevels)), from, to, groupBy, visibleLevels, [...names]]);
    let answer = this.answers.get(key);
    // Most recently used last, so the oldest is the one let go.
    if (answer) this.answers.delete(key);
    // A service deleted since keeps its incidents apart under its id (docs/api.md).
    else answer = metricsGroups(this.copy.declaredIn(Date.parse(from), Date.parse(to), visibleLevels), groupBy, (id) => names.get(id) ?? id);
    this.answers.set(key, answer);
    if (this.answers.size > KEPT_ANSWERS) this.answers.delete(this.answers.keys().next().value as string);
    return answer;
  }

  /** Settles once the copy holds every change the read model held when it was called. */
  private caughtUp(): Promise<void> {
    if (!this.reading) {
      this.reading = this.copy.catchUp(this.metrics, CHANGES_PER_READ).finally(() => (this.reading = undefined));
      return this.reading;
    }
    // The read in flight may have begun before a change this caller must see: one more read follows it, shared by every caller meanwhile.
    this.readAfterThis ??= this.reading
      .catch(() => undefined)
      .then(() => {
        this.readAfterThis = undefined;
        return this.caughtUp();
      });
    return this.readAfterThis;
  }
}
