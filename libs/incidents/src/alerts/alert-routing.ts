import type { Decider, StreamEvent } from '../decider';
import { InvalidError, NotFoundError } from '../domain-errors';
import { INCIDENT_ID_PATTERN, type IncidentState } from '../incident';
import { unresolved } from '../incident.decider';
import { ALERT_RESOLVE_TYPE, ALERT_TRIGGER_TYPE, INCIDENT_EVENT_TYPES } from '../incident-events';
import { FINGERPRINT_BIND_TYPE, fingerprintStreamId } from '../stream-names';

/** A fingerprint's stream: the incident its alerts join is the last claim's (none before the first). */
export type FingerprintState = string | undefined;

/** The fingerprint's alerts join this incident from now on. */
export interface ClaimFingerprint {
  kind: 'claim';
  fingerprint: string;
  incidentId: string;
}

export const fingerprintDecider: Decider<ClaimFingerprint, FingerprintState, StreamEvent> = {
  // A client sees the claim as part of the incident its alert joins.
  stream: { subject: 'incident', streamId: fingerprintStreamId },
  initialState: undefined,
  decide: ({ fingerprint, incidentId }, bound) => (bound === incidentId ? [] : [{ type: FINGERPRINT_BIND_TYPE, data: { fingerprint, incident_id: incidentId } }]),
  evolve: (bound, event) => (event.type === FINGERPRINT_BIND_TYPE ? String((event.data as { incident_id?: unknown } | undefined)?.incident_id) : bound),
};

/** What routing an event looks at. */
export interface RoutedEvent {
  type: string;
  /** The incident its subject names, if it names one. */
  named?: string;
  /** im.fingerprint. */
  fingerprint?: string;
}

/** An event recorded before under one of the same dedup keys. */
export interface Duplicate {
  eventId: string;
  incidentId: string;
}

/** What routing an event consults besides the event, read before it is routed. */
export interface RoutingFacts {
  /** The event stored before under one of its dedup keys, if any. */
  duplicate?: Duplicate;
  /** The incident the fingerprint's alerts go to (see fingerprintToConsult): its stream's claim, followed along duplicate links (duplicateLink). */
  bound: FingerprintState;
  /** The state of that incident. */
  boundIncident: IncidentState;
}

/**
 * The most duplicate links routing follows from a fingerprint's incident.
 * Marking checks that `of` is no duplicate, so a chain grows only as
 * incidents it ends at are marked in turn; a loop needs two incidents marked
 * duplicates of each other at the same moment. Past the bound (or at a link
 * to an incident that cannot be read) routing stops where it is: a trigger
 * opens a new incident, as for a resolved one.
 */
export const MAX_DUPLICATE_LINKS = 16;

/** Where a duplicate's alerts go: the incident it duplicates. Undefined for any other incident. */
export const duplicateLink = (state: IncidentState): string | undefined => (state?.status === 'duplicate' ? state.duplicateOf : undefined);

/** Where an event goes (decisions.md, "An event without subject"). */
export type Route =
  | ({ kind: 'duplicate' } & Duplicate)
  /** To the incident its subject names, or the one its fingerprint's alerts joined (a resolve). */
  | { kind: 'existing'; incidentId: string }
  /** A trigger joins its fingerprint's unresolved incident, and may be stored there only while it stays unresolved. */
  | { kind: 'join'; incidentId: string }
  /** It opens a new incident, under an id drawn for it; `claims`: the fingerprint whose alerts join it from now on. */
  | { kind: 'open'; claims?: string };

const mayOpen = (type: string) => type === INCIDENT_EVENT_TYPES.declare || type === ALERT_TRIGGER_TYPE;

/** The fingerprint whose stream (and bound incident) routing the event needs, if any. */
export function fingerprintToConsult({ type, named, fingerprint }: RoutedEvent): string | undefined {
  return named === undefined && (type === ALERT_TRIGGER_TYPE || type === ALERT_RESOLVE_TYPE) ? fingerprint : undefined;
}

/** Dedup, then routing: a pure answer over what was read; throws a DomainError for an event that goes nowhere. */
export function routeEvent(event: RoutedEvent, { duplicate, bound, boundIncident }: RoutingFacts): Route {
  if (duplicate) return { kind: 'duplicate', ...duplicate };
  const { type, named, fingerprint } = event;
  if (named !== undefined) {
    if (mayOpen(type) && !INCIDENT_ID_PATTERN.test(named)) {
      throw new InvalidError('to open an incident, subject must be incident/INC-<8 lowercase hex characters>');
    }
    return { kind: 'existing', incidentId: named };
  }
  switch (type) {
    case INCIDENT_EVENT_TYPES.declare:
      return { kind: 'open' };
    case ALERT_TRIGGER_TYPE:
      if (fingerprint === undefined) return { kind: 'open' };
      // A claim whose incident was never written (a crash in between, before claims were atomic) is reused.
      return bound !== undefined && unresolved(boundIncident) ? { kind: 'join', incidentId: bound } : { kind: 'open', claims: fingerprint };
    case ALERT_RESOLVE_TYPE:
      if (fingerprint === undefined) throw new InvalidError('im.alert.resolve needs subject or im.fingerprint');
      if (bound === undefined) throw new NotFoundError(`No incident has joined fingerprint ${fingerprint}`);
      return { kind: 'existing', incidentId: bound };
    default:
      throw new InvalidError(`subject (incident/<incident_id>) is required for ${type}`);
  }
}
