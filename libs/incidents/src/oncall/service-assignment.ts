import type { ServiceAssigned } from '../incident-events';
import { sameName } from './oncall.decider';

/** What an opening event is given of its service: recorded as im.incident.service_assigned beside it. */
export type ServiceAssignment = ServiceAssigned['data'];

/** A service as the assignment reads it (the services read model's records fit). */
export interface KnownService {
  id: string;
  name: string;
  escalationPolicyId: string | null;
}

/** What an incident's opening says of its service. */
export interface OpeningFacts {
  /** The service of the integration key the opening alert was sent with; null or undefined: none. */
  keyServiceId?: string | null;
  /** The opening event's data (an alert's, a timeline declare's) or a declaration's fields. */
  data: Readonly<Record<string, unknown>>;
}

/**
 * The service an incident belongs to, fixed when it opens (docs/decisions.md,
 * "Paging and its timers"): the integration key's service; else `data.service`
 * when it names a service (by id, else by name whatever its case); else the
 * first of a declaration's `services` naming one; else none.
 */
export function assignedService(services: readonly KnownService[], { keyServiceId, data }: OpeningFacts): ServiceAssignment | undefined {
  const byId = (id: string) => services.find((service) => service.id === id);
  const named = (reference: unknown) =>
    typeof reference !== 'string' ? undefined : byId(reference) ?? services.find((service) => sameName(service.name, reference.trim()));
  const listed = Array.isArray(data.services) ? data.services : [];
  const service = (keyServiceId ? byId(keyServiceId) : undefined) ?? named(data.service) ?? listed.map(named).find((found) => found !== undefined);
  return service && { service_id: service.id, escalation_policy_id: service.escalationPolicyId };
}
