import type { Incident } from '@im/incidents';

export interface IncidentResponse {
  id: string;
  title: string;
  description?: string;
  severity: string;
  status: string;
  created_at: string;
  updated_at: string;
  /** How many of its alerts (distinct fingerprints) are firing now. */
  alerts_firing: number;
  /** Of a duplicate: the incident it duplicates. */
  duplicate_of?: string;
}

export const toIncidentResponse = (incident: Incident): IncidentResponse => ({
  id: incident.id,
  title: incident.title,
  ...(incident.description !== undefined ? { description: incident.description } : {}),
  severity: incident.severity,
  status: incident.status,
  created_at: incident.createdAt,
  updated_at: incident.updatedAt,
  alerts_firing: incident.firingAlerts?.length ?? 0,
  ...(incident.duplicateOf !== undefined ? { duplicate_of: incident.duplicateOf } : {}),
});
