import type { Incident as DomainIncident, Severity as DomainSeverity, Status as DomainStatus } from '@im/incidents';
import type { NotificationRecord, NotificationPreferences as StoredPreferences, TimelineEventView } from '@im/read-models';
import type { Notification, NotificationDecision, NotificationTrigger } from './notifications.types';
import { Incident, IncidentSummary, NotificationPreferences, Severity, Status, TimelineEventSummary } from './schema.types';

/** An event's summary on a phone, about a line of a small screen: a view's size, not a tuning knob (the full text is the REST timeline's). */
const SUMMARY_LENGTH = 140;

const shorten = (text: string) => (text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text);

export const toGqlSeverity = (severity: DomainSeverity) => severity.replace('-', '_') as Severity;
export const fromGqlSeverity = (severity: Severity) => severity.replace('_', '-') as DomainSeverity;
export const toGqlStatus = (status: DomainStatus) => status.toUpperCase() as Status;
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
  duplicateOf: incident.duplicateOf ?? null,
  serviceId: incident.escalation?.serviceId ?? null,
});

export const toGqlSummary = (incident: DomainIncident): IncidentSummary => ({
  id: incident.id,
  title: incident.title,
  severity: toGqlSeverity(incident.severity),
  status: toGqlStatus(incident.status),
  lastUpdate: new Date(incident.updatedAt),
});

/** A timeline event as the caller reads it (already withheld or redacted), in brief. */
export const toGqlTimelineEvent = (event: Pick<TimelineEventView, 'id' | 'event_type' | 'title' | 'content' | 'event_time' | 'actor' | 'sender'>): TimelineEventSummary => ({
  id: event.id,
  type: event.event_type,
  summary: shorten(event.content || event.title),
  time: new Date(event.event_time),
  actor: event.actor,
  sender: event.sender ?? null,
});

export const toGqlPreferences = (userId: string, prefs: Omit<StoredPreferences, 'userId' | 'updatedAt'>): NotificationPreferences => ({
  id: userId,
  userId,
  pushEnabled: prefs.pushEnabled,
  severityFilter: prefs.severityFilter.map(toGqlSeverity),
  quietHours: prefs.quietHours,
  channels: prefs.channels,
});

export const toGqlNotification = (record: NotificationRecord): Notification => ({
  id: record.id,
  incidentId: record.incidentId,
  channel: record.channel,
  trigger: record.trigger as NotificationTrigger,
  decision: record.decision as NotificationDecision,
  reason: record.reason,
  createdAt: new Date(record.createdAt),
  sentAt: record.sentAt === null ? null : new Date(record.sentAt),
});
