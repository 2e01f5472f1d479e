import { DATA_CLASSES, type DataClass, VISIBILITIES, type Visibility } from '@im/cloudevents';

/** Who is calling, from a verified token (or the anonymous caller of development mode). */
export interface Principal {
  sub: string;
  roles: string[];
  clearance: Visibility;
  dataAccess: DataClass[];
  authenticated: boolean;
  /** The token's `email` claim, when it has one: where notification mail goes once the responder saves their settings. */
  email?: string;
  /** Set when an integration key authenticated the caller: its id. Such a caller may use only the routes that accept keys. */
  integrationKey?: string;
}

export const TIMELINE_ROLES = {
  writer: 'timeline.writer',
  reader: 'timeline.reader',
  exporter: 'timeline.exporter',
} as const;

/** Creates, lists and revokes integration keys, and reads their ledger. */
export const INTEGRATIONS_ADMIN_ROLE = 'integrations.admin';

/** Registers, lists and removes outbound webhooks, reads their delivery logs and re-sends deliveries. */
export const WEBHOOKS_ADMIN_ROLE = 'webhooks.admin';

/** Creates, changes and deletes services, escalation policies, schedules and anyone's overrides (reading them needs no role). */
export const ONCALL_ADMIN_ROLE = 'oncall.admin';

/** The caller of an open development endpoint without a token: sees only what is public. */
export const ANONYMOUS: Principal = {
  sub: 'anonymous',
  roles: [],
  clearance: 'public',
  dataAccess: [],
  authenticated: false,
};

export class InvalidClaimsError extends Error {}

/** One address, no display name or list: what a mail's To may hold. */
const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+$/;

const stringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/** The token's claims, checked: a token whose claims are malformed authenticates nobody. */
export function principalFromClaims(claims: Record<string, unknown>): Principal {
  const { sub, roles = [], clearance = 'public', data_access: dataAccess = [] } = claims;
  if (typeof sub !== 'string' || sub.trim() === '') throw new InvalidClaimsError('sub must be a non-empty string');
  if (!stringArray(roles)) throw new InvalidClaimsError('roles must be an array of strings');
  if (!(VISIBILITIES as readonly unknown[]).includes(clearance)) {
    throw new InvalidClaimsError(`clearance must be one of ${VISIBILITIES.join(', ')}`);
  }
  if (!stringArray(dataAccess) || !dataAccess.every((c) => (DATA_CLASSES as readonly string[]).includes(c))) {
    throw new InvalidClaimsError(`data_access must be an array of ${DATA_CLASSES.join(', ')}`);
  }
  return {
    sub,
    roles,
    clearance: clearance as Visibility,
    dataAccess: dataAccess as DataClass[],
    authenticated: true,
    // An address that is not one is left out, not refused: tokens that worked before keep working.
    ...(typeof claims.email === 'string' && EMAIL.test(claims.email) ? { email: claims.email } : {}),
  };
}
