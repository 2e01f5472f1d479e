import { InvalidError } from '@im/incidents';
import { InvalidClaimsError, principalFromClaims } from '@im/access';
import type { DevelopmentClaims } from '../auth/development-token';
import { jsonObjectBody } from '../http/json-body.parser';

const FIELDS = new Set(['sub', 'roles', 'clearance', 'data_access']);
/** More roles than the service has, many times over: a bound on the token's size, not a knob. */
const MAX_ROLES = 32;

/** `POST /api/v1/console/development-token`: who to sign in as, checked as a token's claims would be. */
export function parseDevelopmentSignInBody(body: unknown): DevelopmentClaims {
  const raw = jsonObjectBody(body);
  const unknown = Object.keys(raw).find((key) => !FIELDS.has(key));
  if (unknown !== undefined) throw new InvalidError(`${unknown} is not a sign-in field; use ${[...FIELDS].join(', ')}`);
  const { sub, roles = [], clearance = 'public', data_access: dataAccess = [] } = raw;
  if (Array.isArray(roles) && roles.length > MAX_ROLES) throw new InvalidError(`roles may name at most ${MAX_ROLES} roles`);
  try {
    const principal = principalFromClaims({ sub, roles, clearance, data_access: dataAccess });
    return { sub: principal.sub, roles: principal.roles, clearance: principal.clearance, data_access: principal.dataAccess };
  } catch (error) {
    if (error instanceof InvalidClaimsError) throw new InvalidError(error.message);
    throw error;
  }
}
