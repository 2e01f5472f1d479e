import {
  INTEGRATION_KEY_CREATED_TYPE,
  INTEGRATION_KEY_REVOKED_TYPE,
  INTEGRATION_KEYS_STREAM,
  type IntegrationKeyCreatedData,
} from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/** An integration key as authentication and the admin's list read it. */
export interface IntegrationKeyRecord {
  id: string;
  name: string;
  roles: string[];
  /** Hex SHA-256 of the key; never leaves the service. */
  keyHash: string;
  createdAt: string;
  /** Who created it (the admin's sub). */
  createdBy: string;
  revokedAt: string | null;
  revokedBy: string | null;
  /** The service the key's alerts belong to; absent in documents folded before keys named one. */
  serviceId?: string | null;
}

/** One document per key: created, then perhaps revoked. Kept after revocation, so the list shows what was revoked when. */
export const integrationKeyProjection: Projection<IntegrationKeyRecord> = {
  name: 'integration_keys',
  keyOf: ({ streamId, event }) =>
    streamId === INTEGRATION_KEYS_STREAM && (event.type === INTEGRATION_KEY_CREATED_TYPE || event.type === INTEGRATION_KEY_REVOKED_TYPE)
      ? (event.data as { id: string }).id
      : undefined,
  evolve: (doc, { event }) => {
    if (event.type === INTEGRATION_KEY_CREATED_TYPE) {
      const { id, name, roles, key_hash: keyHash, service_id: serviceId = null } = event.data as unknown as IntegrationKeyCreatedData;
      return { id, name, roles, keyHash, createdAt: event.time, createdBy: event['im.actor'] ?? event.source, revokedAt: null, revokedBy: null, serviceId };
    }
    return doc && { ...doc, revokedAt: event.time, revokedBy: event['im.actor'] ?? event.source };
  },
  schema: documentSchema({
    fields: { createdAt: { type: 'text', path: ['createdAt'] } },
    indexes: [{ name: 'by_created', on: ['createdAt', 'key'] }],
  }),
};
