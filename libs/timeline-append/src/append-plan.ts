import { type CloudEvent, incidentIdOfSubject, incidentSubject, toLedgerEvent } from '@im/cloudevents';
import {
  type Duplicate,
  duplicateLink,
  fingerprintToConsult,
  type IncidentState,
  MAX_DUPLICATE_LINKS,
  type RecordEvent,
  type Route,
  routeEvent,
  type RoutingFacts,
} from '@im/incidents';

/** What routing reads of an alert's fingerprint: the incident it is bound to and that incident's state (the real append: with revisions). */
export type FingerprintFacts = Pick<RoutingFacts, 'bound' | 'boundIncident'>;

/**
 * What planning an append consults. The real append reads the ledger; a
 * simulation reads only what its caller may read, and remembers the plans it
 * made before.
 */
export interface AppendLookups<F extends FingerprintFacts> {
  /** An event recorded under one of these keys, if any. */
  duplicateOf(keys: string[]): Promise<Duplicate | undefined>;
  fingerprint(fingerprint: string): Promise<F>;
  /** An incident's state (undefined: none, or none the reader may consult). */
  incident(incidentId: string): Promise<IncidentState>;
}

/** Where the event goes (the domain's routeEvent), its dedup keys, and what routing read of its fingerprint. */
export interface AppendPlan<F extends FingerprintFacts> {
  route: Route;
  dedupKeys: string[];
  fingerprint?: F;
}

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

/** Dedup, then routing (decisions.md, "An event without subject"): the reads, then the domain's answer. */
export async function planAppend<F extends FingerprintFacts>(event: CloudEvent, lookups: AppendLookups<F>, { idDrawnHere = false }: PlanOptions = {}): Promise<AppendPlan<F>> {
  const dedupKeys = dedupKeysOf(event);
  const drawnIdKey = idDrawnHere ? idKeyOf(event) : undefined;
  const duplicate = await lookups.duplicateOf(dedupKeys.filter((key) => key !== drawnIdKey));
  const routed = { type: event.type, named: incidentIdOfSubject(event.subject), fingerprint: event['im.fingerprint'] };
  const consulted = duplicate ? undefined : fingerprintToConsult(routed);
  const fingerprint = consulted === undefined ? undefined : await lookups.fingerprint(consulted);
  const target = fingerprint && (await alongDuplicates(fingerprint, lookups));
  return { route: routeEvent(routed, { duplicate, bound: target?.bound, boundIncident: target?.boundIncident }), dedupKeys, fingerprint };
}

/** A fingerprint's alerts go past a duplicate to the incident it duplicates, link after link (at most MAX_DUPLICATE_LINKS). */
async function alongDuplicates({ bound, boundIncident }: FingerprintFacts, lookups: Pick<AppendLookups<FingerprintFacts>, 'incident'>): Promise<FingerprintFacts> {
  let target = { bound, boundIncident };
  for (let links = 0; links < MAX_DUPLICATE_LINKS; links++) {
    const next = duplicateLink(target.boundIncident);
    const state = next === undefined ? undefined : await lookups.incident(next);
    if (!state) break;
    target = { bound: next, boundIncident: state };
  }
  return target;
}

/** The event as stored on the incident it was routed to (its subject names it), and the command that records it there. */
export function recording(event: CloudEvent, incidentId: string, route: Route): { stored: CloudEvent; command: RecordEvent } {
  const stored = { ...event, subject: incidentSubject(incidentId) };
  return { stored, command: { kind: 'record', incidentId, event: toLedgerEvent(stored, incidentId), whileUnresolved: route.kind === 'join' } };
}
