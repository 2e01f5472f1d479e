import type { IncidentFacts } from '@im/incidents';

/** The incidents declared in a window that a caller may see. */
export interface IncidentFactsQuery {
  /** Inclusive, RFC 3339 UTC (as toISOString writes it). */
  from: string;
  /** Exclusive, RFC 3339 UTC. */
  to: string;
  /**
   * The visibility levels the caller's clearance covers: incidents declared
   * with any other visibility are left out by the query itself. Incidents
   * declared without one are always in.
   */
  visibleLevels: string[];
}

/** Nest injection token of the IncidentMetricsQueries port. */
export const INCIDENT_METRICS_QUERIES = Symbol('INCIDENT_METRICS_QUERIES');

/** Query side of the `incident_metrics` read model (the response metrics, docs/api.md "Insights"). */
export interface IncidentMetricsQueries {
  /** Every incident whose declaration was recorded in [from, to) and whose visibility is covered, in no particular order. */
  factsIn(query: IncidentFactsQuery): Promise<IncidentFacts[]>;
  /**
   * The log position of the latest change to the facts of an incident the levels cover (0 when there is none). An
   * event that changes no such fact leaves it, so an answer computed at one value holds while it stays; a withheld
   * incident's change never moves it, so nothing about one shows in when answers are computed anew.
   */
  lastChange(visibleLevels: string[]): Promise<bigint>;
}
