import type { DataClass } from '@im/cloudevents';
import { ForbiddenError } from '@im/incidents';
import type { Principal } from '@im/access';

/**
 * A caller grants no more than it holds (docs/security.md): what it declares or
 * registers is checked against its own clearance and data access. The one check
 * of the declare visibility (REST and GraphQL) and of a webhook registration.
 */

/**
 * 403 when `level` ranks above the caller's clearance: `visibleLevels` are the
 * levels it clears (IncidentVisibility.levelsFor, by the policy file's ranking).
 * `what` names the value ("visibility", "clearance"); `rule`, when given, says why.
 */
export function refuseAboveClearance(what: string, level: string | undefined, caller: Principal, visibleLevels: readonly string[], rule?: string): void {
  if (level === undefined || visibleLevels.includes(level)) return;
  throw new ForbiddenError(`${what} ${level} ranks above your clearance (${caller.clearance})${rule ? `: ${rule}` : ''}`);
}

/** 403 when `classes` name a data class outside the caller's data_access. */
export function refuseBeyondDataAccess(what: string, classes: readonly DataClass[], caller: Principal, rule?: string): void {
  const lacking = classes.filter((dataClass) => !caller.dataAccess.includes(dataClass));
  if (lacking.length === 0) return;
  throw new ForbiddenError(`${what} ${lacking.join(', ')} ${lacking.length === 1 ? 'is' : 'are'} not in your data_access (${caller.dataAccess.join(', ') || 'none'})${rule ? `: ${rule}` : ''}`);
}
