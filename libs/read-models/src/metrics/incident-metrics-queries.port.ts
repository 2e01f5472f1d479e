import type { IncidentFacts } from '@im/incidents';

/** An incident's facts as they are now, and the log position of the event that last changed them. */
export interface ChangedFacts {
  facts: IncidentFacts;
  position: bigint;
}

/** One read of the changes. */
export interface ChangesRead {
  /** The earliest changes after the position asked, in log order. */
  changes: ChangedFacts[];
  /** Every change at or before this position has been answered, now or by an earlier read: where the next read starts. */
  readTo: bigint;
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
   * `after`, the earliest changes first, each as it is now. Read again from
   * `readTo`, it misses no change; an incident may be answered again.
   */
  changedSince(after: bigint, limit: number): Promise<ChangesRead>;
}
