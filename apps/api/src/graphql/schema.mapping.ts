import type { Incident as DomainIncident, Severity as DomainSeverity, Status as DomainStatus } from '@im/incidents';
import type { NotificationPreferences as StoredPreferences } from '@im/read-models';
import { Incident, IncidentSummary, NotificationPreferences, Severity, Status } from './schema.types';

export const toGqlSeverity = (severity: DomainSeverity) => severity.replace('-', '_') as Severity;
export const fromGqlSeverity = (severity: Severity) => severity.replace('_', '-') as DomainSeverity;
export const toGqlStatus = (status: DomainStatus) => status.toUpperCase() as Status;
/** DUPLICATE and CANCELED have no REST status: a filter on them matches nothing. */
export const fromGqlStatus = (status: Status) => status.toLowerCase() as DomainStatus;

export const toGqlIncident = (incident: DomainIncident): Incident => ({
  id: incident.id,
  title: incident.title,
  description: incident.description ?? null,
  severity: toGqlSeverity(incident.severity),
  status: toGqlStatus(incident.status),
  services: incident.services ?? [],
  labels: incident.labels ?? null,
  createdAt: new Date(incident.createdAt),
  updatedAt: new Date(incident.updatedAt),
});

export const toGqlSummary = (incident: DomainIncident): IncidentSummary => ({
  id: incident.id,
  title: incident.title,
  severity: toGqlSeverity(incident.severity),
  status: toGqlStatus(incident.status),
  lastUpdate: new Date(incident.updatedAt),
});

export const toGqlPreferences = (userId: string, prefs: Omit<StoredPreferences, 'userId' | 'updatedAt'>): NotificationPreferences => ({
  id: userId,
  userId,
  pushEnabled: prefs.pushEnabled,
  severityFilter: prefs.severityFilter.map(toGqlSeverity),
  quietHours: prefs.quietHours,
  channels: prefs.channels,
});
