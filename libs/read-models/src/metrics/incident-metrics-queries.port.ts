import type { IncidentFacts } from '@im/incidents';

/** An incident's facts as they are now, and the log position of the event that last changed them. */
export interface ChangedFacts {
  facts: IncidentFacts;
  position: bigint;
}

/** Nest injection token of the IncidentMetricsQueries port. */
export const INCIDENT_METRICS_QUERIES = Symbol('INCIDENT_METRICS_QUERIES');

/**
 * Query side of the `incident_metrics` read model (the response metrics,
 * docs/api.md "Insights"): read as changes, which an api applies to its copy
 * in memory (IncidentFactsIndex), whatever the incidents' visibility; the
 * copy withholds by visibility when it answers.
 */
export interface IncidentMetricsQueries {
  /**
   * Up to `limit` incidents whose facts last changed after log position
   * `after`, the earliest changes first. Read again from the last position
   * answered, it misses no change: a change is answered only once every
   * change before it can be.
   */
  changedSince(after: bigint, limit: number): Promise<ChangedFacts[]>;
}
