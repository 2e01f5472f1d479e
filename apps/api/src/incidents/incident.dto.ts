import type { Incident } from '@im/incidents';
import type { ServiceRecord } from '@im/read-models';

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
  /** The service it belongs to, fixed when it opened; null for none (or one deleted since). */
  service?: { id: string; name: string } | null;
}

/** The incident routes' answer: the incident with the service it belongs to, as OncallQueryService.servicesOf finds it. */
export const withService = (response: IncidentResponse, service: ServiceRecord | undefined): IncidentResponse => ({
  ...response,
  service: service ? { id: service.id, name: service.name } : null,
});

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
