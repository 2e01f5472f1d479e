import type { Decider, StreamEvent } from '../decider';
import { ConflictError, InvalidError, NotFoundError } from '../domain-errors';
import { INTEGRATION_KEYS_STREAM } from '../stream-names';

/** Event type strings are a public contract: never rename them. */
export const INTEGRATION_KEY_CREATED_TYPE = 'im.integration_key.created';
export const INTEGRATION_KEY_REVOKED_TYPE = 'im.integration_key.revoked';

/** The roles a key may carry: a monitoring system writes to the timeline, nothing else. */
export const INTEGRATION_KEY_ROLES: readonly string[] = ['timeline.writer'];
export const INTEGRATION_KEY_NAME_MAX_LENGTH = 100;

export interface IntegrationKeyCreatedData {
  id: string;
  name: string;
  roles: string[];
  /** Hex SHA-256 of the key (integration-key.ts): the secret itself is never recorded. */
  key_hash: string;
  /** The service whose incidents the key's alerts open (absent: none). */
  service_id?: string;
}
export interface IntegrationKeyRevokedData {
  id: string;
}

export type IntegrationKeyEvent =
  | { type: typeof INTEGRATION_KEY_CREATED_TYPE; data: IntegrationKeyCreatedData }
  | { type: typeof INTEGRATION_KEY_REVOKED_TYPE; data: IntegrationKeyRevokedData };

export type IntegrationKeyCommand =
  | { kind: 'create'; id: string; name: string; roles: string[]; keyHash: string; serviceId?: string }
  | { kind: 'revoke'; id: string };

/** What decisions need of the `integration-keys` stream: every key ever created, and whether it is revoked. */
export interface IntegrationKeysState {
  readonly revoked: ReadonlyMap<string, boolean>;
}

export const initialIntegrationKeysState: IntegrationKeysState = { revoked: new Map() };

export const integrationKeyNotFound = (id: string) => new NotFoundError(`Integration key ${id} not found`);

export function evolveIntegrationKeys(state: IntegrationKeysState, event: { type: string; data?: unknown }): IntegrationKeysState {
  const id = (event.data as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string') return state;
  if (event.type === INTEGRATION_KEY_CREATED_TYPE) return { revoked: new Map(state.revoked).set(id, false) };
  if (event.type === INTEGRATION_KEY_REVOKED_TYPE && state.revoked.has(id)) return { revoked: new Map(state.revoked).set(id, true) };
  return state;
}

/**
 * Creating checks the name and that every role is one a key may carry.
 * Revoking an unknown key is not found; revoking a revoked key changes
 * nothing (no event), so a DELETE retried after a lost answer succeeds again.
 */
export function decideIntegrationKey(command: IntegrationKeyCommand, state: IntegrationKeysState): IntegrationKeyEvent[] {
  switch (command.kind) {
    case 'create': {
      const { id, name, roles, keyHash, serviceId } = command;
      if (name.trim() === '' || name.length > INTEGRATION_KEY_NAME_MAX_LENGTH) {
        throw new InvalidError(`name must be a non-empty text of at most ${INTEGRATION_KEY_NAME_MAX_LENGTH} characters`);
      }
      if (roles.length === 0 || !roles.every((role) => INTEGRATION_KEY_ROLES.includes(role))) {
        throw new InvalidError(`roles must list roles among ${INTEGRATION_KEY_ROLES.join(', ')}: an integration key only writes to the timeline`);
      }
      if (state.revoked.has(id)) throw new ConflictError(`Integration key ${id} already exists`);
      const data = { id, name: name.trim(), roles: [...new Set(roles)], key_hash: keyHash, ...(serviceId === undefined ? {} : { service_id: serviceId }) };
      return [{ type: INTEGRATION_KEY_CREATED_TYPE, data }];
    }
    case 'revoke': {
      const revoked = state.revoked.get(command.id);
      if (revoked === undefined) throw integrationKeyNotFound(command.id);
      return revoked ? [] : [{ type: INTEGRATION_KEY_REVOKED_TYPE, data: { id: command.id } }];
    }
    default: {
      const unhandled: never = command;
      throw new InvalidError(`Unknown command ${String((unhandled as { kind?: unknown }).kind)}`);
    }
  }
}

export const integrationKeyDecider: Decider<IntegrationKeyCommand, IntegrationKeysState, StreamEvent> = {
  stream: { subject: 'integration keys', streamId: () => INTEGRATION_KEYS_STREAM },
  initialState: initialIntegrationKeysState,
  decide: decideIntegrationKey,
  evolve: evolveIntegrationKeys,
};
