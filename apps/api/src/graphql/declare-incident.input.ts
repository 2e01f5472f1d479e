import { type EnvelopeContext, VISIBILITIES } from '@im/cloudevents';
import { ForbiddenError, InvalidError } from '@im/incidents';
import type { Principal } from '../auth/principal';
import type { DeclareInput } from '../incidents/incident-command.handler';
import { fromGqlSeverity } from './schema.mapping';
import type { DeclareIncidentInput } from './schema.types';

/** What declareIncident asks the command handler for. */
export interface DeclareRequest {
  input: DeclareInput;
  attributes: EnvelopeContext['attributes'];
}

/**
 * declareIncident's input: the caller becomes incident commander, and a
 * visibility is recorded as the event's im.visibility. The declaring commander
 * must be able to see what they declare, so a visibility above the caller's
 * clearance (`visibleLevels`) is refused. The other values are the domain's to judge.
 */
export function parseDeclareIncidentInput(input: DeclareIncidentInput, caller: Principal, visibleLevels: readonly string[]): DeclareRequest {
  const { visibility } = input;
  if (visibility !== undefined && visibility !== null && !(VISIBILITIES as readonly string[]).includes(visibility)) {
    throw new InvalidError(`visibility must be one of ${VISIBILITIES.join(', ')}`);
  }
  if (visibility && !visibleLevels.includes(visibility)) {
    throw new ForbiddenError(`visibility ${visibility} ranks above your clearance (${caller.clearance})`);
  }
  return {
    input: { ...input, severity: fromGqlSeverity(input.severity), commander: caller.sub },
    attributes: visibility ? { 'im.visibility': visibility } : undefined,
  };
}
