import type { Incident } from './incident';
import { ConflictError, type DomainError, ForbiddenError } from './domain-errors';

/** Who asks for a command: the token's subject and roles. */
export interface Caller {
  id: string;
  roles: readonly string[];
}

/** The role that may assign roles on any incident, replacing its commander included. */
export const INCIDENTS_ADMIN_ROLE = 'incidents.admin';

/*
 * The rules below are shared by the decider (which refuses the command) and
 * the GraphQL quickActions (which shows the action disabled), so the two can
 * never disagree: an action is enabled exactly when its rule has no refusal.
 */

/** Why a note cannot be added now, if it cannot: notes are taken until the incident is closed. */
export function noteRefusal(incident: Incident): DomainError | undefined {
  return incident.status === 'closed' ? new ConflictError(`Cannot add a note to incident ${incident.id}: it is closed`) : undefined;
}

/** Why the severity cannot be changed now, if it cannot: until the incident is closed. */
export function severityChangeRefusal(incident: Incident): DomainError | undefined {
  return incident.status === 'closed' ? new ConflictError(`Cannot change the severity of incident ${incident.id}: it is closed`) : undefined;
}

/**
 * Why the caller cannot assign roles now, if they cannot: not once the incident
 * is closed; anyone may while it has no commander, afterwards only the
 * commander or an incidents admin (so a commander can always be replaced).
 */
export function roleAssignmentRefusal(incident: Incident, caller: Caller): DomainError | undefined {
  if (incident.status === 'closed') return new ConflictError(`Cannot assign roles on incident ${incident.id}: it is closed`);
  const commander = incident.roles?.IC;
  if (commander === undefined || commander === caller.id || caller.roles.includes(INCIDENTS_ADMIN_ROLE)) return undefined;
  return new ForbiddenError(`Only the incident commander (${commander}) or a holder of ${INCIDENTS_ADMIN_ROLE} may assign roles on ${incident.id}`);
}
