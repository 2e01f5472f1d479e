import type { CloudEvent } from '@im/cloudevents';
import { INTEGRATION_KEYS_STREAM } from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/** One event of the `integration-keys` stream as the admin's history lists it. */
export interface IntegrationKeyHistoryEntry {
  /** The CloudEvent as written, its data without the key's hash. */
  event: CloudEvent;
  /** When the ledger stored the event. */
  recordedAt: string;
}

/**
 * Every event of the `integration-keys` stream (each create and revoke), keyed
 * by its log position and listed in that order: the stream's own order. The
 * key's hash is left out here, so the history never holds it.
 */
export const integrationKeyHistoryProjection: Projection<IntegrationKeyHistoryEntry> = {
  name: 'integration_key_history',
  writeOnce: true,
  keyOf: ({ streamId, position }) => (streamId === INTEGRATION_KEYS_STREAM ? String(position) : undefined),
  evolve: (doc, { event, recordedAt }) => {
    if (doc) return doc;
    const { key_hash: _hash, ...data } = event.data ?? {};
    return { event: { ...event, data }, recordedAt };
  },
  schema: documentSchema({ fields: {}, indexes: [{ name: 'by_position', on: ['position'] }] }),
};
