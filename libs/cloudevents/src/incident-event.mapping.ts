import { randomUUID } from 'node:crypto';
import type { IncidentEvent, LedgerEvent } from '@im/incidents';
import { type CloudEvent, incidentIdOfSubject, incidentSubject, SERVICE_SOURCE } from './cloud-event';
import { withSender } from './event-sender';

export interface EnvelopeContext {
  actor: string;
  /** The authenticated caller whose command this is (docs/security.md, "Who wrote an event"). */
  sender: string;
  source?: string;
  /** Extension attributes for the event, e.g. im.visibility. */
  attributes?: Partial<CloudEvent>;
}

/** Wraps a domain event into the CloudEvent the ledger stores. */
export function toCloudEvent(event: IncidentEvent, context: EnvelopeContext): CloudEvent {
  const envelope: CloudEvent = {
    specversion: '1.0',
    id: randomUUID(),
    source: context.source ?? SERVICE_SOURCE,
    type: event.type,
    time: event.time,
    subject: incidentSubject(event.incidentId),
    datacontenttype: 'application/json',
    data: { ...event.data },
    ...context.attributes,
    'im.actor': context.actor,
  };
  return withSender(envelope, context.sender);
}

/** The view of a stored CloudEvent that the incident fold reads; `time`: when the ledger recorded it, where the fold needs that. */
export function toLedgerEvent(event: CloudEvent, incidentId?: string, time = event.time): LedgerEvent {
  return {
    type: event.type,
    incidentId: incidentId ?? incidentIdOfSubject(event.subject) ?? '',
    time,
    data: event.data,
    fingerprint: event['im.fingerprint'],
    visibility: event['im.visibility'],
  };
}
