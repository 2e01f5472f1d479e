import { type CloudEvent, incidentIdOfSubject, incidentSubject, toLedgerEvent } from '@im/cloudevents';
import {
  ALERT_RESOLVE_TYPE,
  ALERT_TRIGGER_TYPE,
  ConflictError,
  decideRecord,
  INCIDENT_EVENT_TYPES,
  INCIDENT_ID_PATTERN,
  type IncidentState,
  InvalidError,
  NotFoundError,
} from '@im/incidents';

/** Not resolved or closed yet: an alert of its fingerprint joins it. An incident that was claimed but never written counts as open. */
export const unresolved = (state: IncidentState) => !state || (state.status !== 'resolved' && state.status !== 'closed');

/** An event recorded before under one of the same dedup keys. */
export interface Duplicate {
  eventId: string;
  incidentId: string;
}

/**
 * What planning an append consults. The real append reads the ledger and
 * claims fingerprints; a simulation reads only what its caller may read, and
 * remembers the plans it made before.
 */
export interface AppendLookups {
  /** An event recorded under one of these keys, if any. */
  duplicateOf(keys: string[]): Promise<Duplicate | undefined>;
  /** The incident the fingerprint's alerts joined last, if any. */
  boundIncident(fingerprint: string): Promise<string | undefined>;
  /** The unresolved incident the fingerprint's alerts join, or a new one claimed for them. */
  joinOrClaim(fingerprint: string): Promise<string>;
  newIncidentId(): string;
}

/** What appending an event means: nothing (a duplicate), or this event on this incident. */
export type AppendPlan =
  | ({ kind: 'duplicate' } & Duplicate)
  | {
      kind: 'append';
      incidentId: string;
      /** The incident id was freshly drawn: its stream must not exist yet. */
      opensIncident: boolean;
      /** The event as it is stored: its subject names the incident. */
      event: CloudEvent;
      dedupKeys: string[];
      /**
       * What the choice of incident rested on, if it depends on the incident's
       * state: the event may be appended only at a revision where this still
       * holds; where it no longer does, the event is planned again.
       */
      holds?: (state: IncidentState) => boolean;
    };

/** The incident an event was routed to changed before the event was stored there: plan it again. */
export class RouteChangedError extends ConflictError {}

const idKeyOf = (event: CloudEvent) => `id\n${event.source}\n${event.id}`;

/** CloudEvents identity (source, id) and the source system's idempotency key (source, im.origin_id). */
export function dedupKeysOf(event: CloudEvent): string[] {
  const keys = [idKeyOf(event)];
  if (event['im.origin_id'] !== undefined) keys.push(`origin\n${event.source}\n${event['im.origin_id']}`);
  return keys;
}

export interface PlanOptions {
  /**
   * The event's id was drawn by the service for it just now (an alert of a
   * webhook payload): no stored event can have it, so only its other keys are
   * looked up. The append still records and checks every key.
   */
  idDrawnHere?: boolean;
}

/** Dedup, then routing (decisions.md, "An event without subject"); the decision comes with the state, in decideAppend. */
export async function planAppend(event: CloudEvent, lookups: AppendLookups, { idDrawnHere = false }: PlanOptions = {}): Promise<AppendPlan> {
  const dedupKeys = dedupKeysOf(event);
  const drawnIdKey = idDrawnHere ? idKeyOf(event) : undefined;
  const duplicate = await lookups.duplicateOf(dedupKeys.filter((key) => key !== drawnIdKey));
  if (duplicate) return { kind: 'duplicate', ...duplicate };
  const route = await routeOf(event, lookups);
  return { kind: 'append', ...route, dedupKeys, event: { ...event, subject: incidentSubject(route.incidentId) } };
}

/** The events a planned append stores on the incident's `state`; throws a DomainError when the event does not fit. */
export function decideAppend(plan: Extract<AppendPlan, { kind: 'append' }>, state: IncidentState): CloudEvent[] {
  const { incidentId, event, holds } = plan;
  if (holds && !holds(state)) throw new RouteChangedError(`Incident ${incidentId} changed while the event was routed to it`);
  decideRecord({ kind: 'record', incidentId, event: toLedgerEvent(event, incidentId) }, state);
  return [event];
}

type Route = Pick<Extract<AppendPlan, { kind: 'append' }>, 'incidentId' | 'opensIncident' | 'holds'>;

async function routeOf(event: CloudEvent, lookups: AppendLookups): Promise<Route> {
  const named = incidentIdOfSubject(event.subject);
  const mayOpen = event.type === INCIDENT_EVENT_TYPES.declare || event.type === ALERT_TRIGGER_TYPE;
  if (named !== undefined) {
    if (mayOpen && !INCIDENT_ID_PATTERN.test(named)) {
      throw new InvalidError('to open an incident, subject must be incident/INC-<8 lowercase hex characters>');
    }
    return { incidentId: named, opensIncident: false };
  }
  const fingerprint = event['im.fingerprint'];
  switch (event.type) {
    case INCIDENT_EVENT_TYPES.declare:
      return { incidentId: lookups.newIncidentId(), opensIncident: true };
    case ALERT_TRIGGER_TYPE:
      return fingerprint === undefined
        ? { incidentId: lookups.newIncidentId(), opensIncident: true }
        : { incidentId: await lookups.joinOrClaim(fingerprint), opensIncident: false, holds: unresolved };
    case ALERT_RESOLVE_TYPE: {
      if (fingerprint === undefined) throw new InvalidError('im.alert.resolve needs subject or im.fingerprint');
      const bound = await lookups.boundIncident(fingerprint);
      if (bound === undefined) throw new NotFoundError(`No incident has joined fingerprint ${fingerprint}`);
      return { incidentId: bound, opensIncident: false };
    }
    default:
      throw new InvalidError(`subject (incident/<incident_id>) is required for ${event.type}`);
  }
}
