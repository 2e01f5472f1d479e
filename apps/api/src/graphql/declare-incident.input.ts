import type { Principal } from '@im/access';
import { declaredVisibility } from '../incidents/declared-visibility';
import type { DeclareRequest } from '../incidents/incident-command.handler';
import { fromGqlSeverity } from './schema.mapping';
import type { DeclareIncidentInput } from './schema.types';

/**
 * declareIncident's input: the caller becomes incident commander, and a
 * visibility is recorded as the event's im.visibility (declaredVisibility, shared
 * with REST). The other values are the domain's to judge.
 */
export function parseDeclareIncidentInput(input: DeclareIncidentInput, caller: Principal, visibleLevels: readonly string[]): DeclareRequest {
  const attributes = declaredVisibility(input.visibility, caller, visibleLevels);
  return { input: { ...input, severity: fromGqlSeverity(input.severity), commander: caller.sub }, attributes };
}
