import type { Incident, Severity, Status } from '@im/incidents';

export interface IncidentListQuery {
  statuses?: Status[];
  severities?: Severity[];
  limit: number;
  /** Keyset: return incidents strictly after this one in newest-first order. */
  after?: { createdAt: string; id: string };
  /**
   * The visibility levels the caller's clearance covers: incidents declared
   * with any other visibility are left out by the query itself, so limits,
   * pages and cursors never count them. Incidents declared without a
   * visibility are always listed. Absent: no incident is left out.
   */
  visibleLevels?: string[];
}

/** Nest injection token of the IncidentQueries port. */
export const INCIDENT_QUERIES = Symbol('INCIDENT_QUERIES');

/** Query side of the incident read model (with the assignments behind listForUser). */
export interface IncidentQueries {
  findById(id: string): Promise<Incident | undefined>;
  /** Several at once (for DataLoader); missing ids are absent from the map. */
  findMany(ids: string[]): Promise<Map<string, Incident>>;
  /** Incidents where `userId` holds any RACI role, newest first. */
  listForUser(userId: string, query: Omit<IncidentListQuery, 'after'>): Promise<Incident[]>;
  exists(id: string): Promise<boolean>;
  /** Newest first by createdAt, then id. */
  list(query: IncidentListQuery): Promise<Incident[]>;
  /** How many incidents of the service are in one of the statuses. */
  countOfService(serviceId: string, statuses: readonly Status[]): Promise<number>;
  /** Open incidents with an escalation policy whose paging is not exhausted (what the escalation timers look at), by id, after `after`. */
  listPaging(query: { limit: number; after?: string }): Promise<Incident[]>;
}
