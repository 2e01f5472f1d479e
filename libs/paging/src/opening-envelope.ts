import { type CloudEvent, toCloudEvent } from '@im/cloudevents';
import { type IncidentEvent, type LedgerEvent, SERVICE_ASSIGNED_TYPE, SERVICE_ASSIGNMENT_ACTOR } from '@im/incidents';

/**
 * The envelope of an opening's events: its im.incident.service_assigned is
 * recorded by system:oncall (sent by whoever sent the opening), every other
 * event as `own` stores it.
 */
export const withServiceAssignment =
  (own: (event: IncidentEvent | LedgerEvent) => CloudEvent, sender: string) =>
  (event: IncidentEvent | LedgerEvent): CloudEvent =>
    event.type === SERVICE_ASSIGNED_TYPE ? toCloudEvent(event as IncidentEvent, { actor: SERVICE_ASSIGNMENT_ACTOR, sender }) : own(event);
