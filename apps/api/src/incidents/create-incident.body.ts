import { InvalidError, SEVERITIES } from '@im/incidents';
import type { Principal } from '@im/access';
import { jsonObjectBody } from '../http/json-body.parser';
import { declaredVisibility } from './declared-visibility';
import type { DeclareRequest } from './incident-command.handler';

/**
 * POST /api/v1/incidents: the fields REST declares with, as text (any other
 * field is ignored). Their values (non-empty title, known severity, lengths)
 * are the domain's rules, checked by `decide`, so REST and the timeline agree.
 * Every field of the wrong type is named at once. `visibility` is checked as
 * GraphQL's declareIncident checks it (declaredVisibility): a known level within
 * the caller's clearance (`visibleLevels`).
 */
export function parseCreateIncidentBody(body: unknown, caller: Principal, visibleLevels: readonly string[]): DeclareRequest {
  const { title, severity, description, visibility } = jsonObjectBody(body);
  const problems = [
    typeof title !== 'string' && 'title is required and must be a non-empty string',
    typeof severity !== 'string' && `severity is required and must be one of ${SEVERITIES.join(', ')}`,
    description !== undefined && description !== null && typeof description !== 'string' && 'description must be a string',
  ].filter((problem): problem is string => problem !== false);
  if (problems.length) throw new InvalidError(problems.join('; '));
  return { input: { title, severity, description }, attributes: declaredVisibility(visibility, caller, visibleLevels) };
}
