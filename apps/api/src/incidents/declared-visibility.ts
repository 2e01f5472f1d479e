import { type EnvelopeContext, VISIBILITIES } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import type { Principal } from '@im/access';
import { refuseAboveClearance } from '../auth/caller-limits';

/**
 * A declare's `visibility` (REST and GraphQL alike), recorded as the event's
 * im.visibility: absent or null for none, else one of the four levels (400).
 * The declaring commander must be able to see what they declare, so a
 * visibility above the caller's clearance (`visibleLevels`) is refused (403).
 */
export function declaredVisibility(visibility: unknown, caller: Principal, visibleLevels: readonly string[]): EnvelopeContext['attributes'] {
  if (visibility === undefined || visibility === null) return undefined;
  if (!(VISIBILITIES as readonly unknown[]).includes(visibility)) throw new InvalidError(`visibility must be one of ${VISIBILITIES.join(', ')}`);
  refuseAboveClearance('visibility', visibility as string, caller, visibleLevels);
  return { 'im.visibility': visibility as string };
}
