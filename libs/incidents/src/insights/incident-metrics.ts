import type { Severity } from '../incident';

/** How an incident ended up counting (docs/api.md, "Insights"): canceled and duplicate incidents count in their own fields only. */
export type MetricsOutcome = 'counted' | 'canceled' | 'duplicate';

/**
 * What the response metrics need of one incident, folded from its ledger
 * stream by the `incident_metrics` read model. Every time is the ledger's
 * record time (RFC 3339 UTC), never the `time` a sender wrote.
 */
export interface IncidentFacts {
  id: string;
  /** Record time of the event that opened the incident. */
  declaredAt: string;
  /** The REST severity now. */
  severity: Severity;
  /** The service the incident belongs to (im.incident.service_assigned); null: none. */
  serviceId: string | null;
  /** The visibility it was declared with; null: everyone who may read incidents sees it. */
  visibility: string | null;
  outcome: MetricsOutcome;
  /** Record time of the first im.incident.ack; null: never acknowledged. */
  acknowledgedAt: string | null;
  /** Record time of the first im.incident.resolve; null: never resolved. */
  resolvedAt: string | null;
  /** At least one im.paging.escalate. */
  escalated: boolean;
  /** Alerts (im.alert.trigger) recorded on the incident's stream. */
  alerts: number;
}

/** An incident's facts when it opens: nothing has happened to it yet but its alerts. */
export const factsAtOpening = (opening: Pick<IncidentFacts, 'id' | 'declaredAt' | 'severity' | 'visibility' | 'alerts'>): IncidentFacts => ({
  ...opening,
  serviceId: null,
  outcome: 'counted',
  acknowledgedAt: null,
  resolvedAt: null,
  escalated: false,
});

export const METRICS_GROUPINGS = ['service', 'severity', 'week', 'none'] as const;
export type MetricsGrouping = (typeof METRICS_GROUPINGS)[number];

/** Seconds; null when no incident of the group has the time. */
export interface MetricsTimes {
  p50: number | null;
  p90: number | null;
  mean: number | null;
}

/** One group of GET /api/v1/analytics/incidents (docs/api.md). */
export interface MetricsGroup {
  key: string | null;
  incidents: number;
  acknowledged: number;
  resolved: number;
  escalated: number;
  canceled: number;
  duplicates: number;
  alerts: number;
  time_to_acknowledge: MetricsTimes;
  time_to_resolve: MetricsTimes;
}
