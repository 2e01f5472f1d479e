import { InvalidError } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';

export interface CreateIntegrationKeyInput {
  name: string;
  roles: string[];
  /** The service the key's alerts belong to. */
  serviceId?: string;
}

/**
 * POST /api/v1/integration-keys: `{name, roles, service_id?}` as text, a list
 * of texts and text (any other field is ignored). Which roles a key may carry, and how long a
 * name may be, are the domain's rules (decideIntegrationKey).
 */
export function parseCreateIntegrationKeyBody(body: unknown): CreateIntegrationKeyInput {
  const { name, roles, service_id: serviceId } = jsonObjectBody(body);
  const problems = [
    typeof name !== 'string' && 'name is required and must be a string',
    !(Array.isArray(roles) && roles.every((role) => typeof role === 'string')) && 'roles is required and must be a list of role names',
    !(serviceId === undefined || typeof serviceId === 'string') && 'service_id must be a service id',
  ].filter((problem): problem is string => problem !== false);
  if (problems.length) throw new InvalidError(problems.join('; '));
  return { name: name as string, roles: roles as string[], ...(serviceId === undefined ? {} : { serviceId: serviceId as string }) };
}
