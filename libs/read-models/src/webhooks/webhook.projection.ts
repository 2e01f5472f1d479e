import {
  WEBHOOK_DISABLED_TYPE,
  WEBHOOK_REGISTERED_TYPE,
  WEBHOOK_REMOVED_TYPE,
  WEBHOOKS_STREAM,
  type WebhookRegisteredData,
} from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/** A webhook registration as the admin's list shows it: never its secret, sealed or not. */
export interface WebhookRecord {
  id: string;
  url: string;
  eventTypes: string[];
  clearance: string;
  dataAccess: string[];
  description: string | null;
  enabled: boolean;
  createdAt: string;
  /** Who registered it (the admin's sub). */
  createdBy: string;
}

const TYPES: string[] = [WEBHOOK_REGISTERED_TYPE, WEBHOOK_DISABLED_TYPE, WEBHOOK_REMOVED_TYPE];

/** One document per registration; a removal deletes it (the ledger keeps the history). */
export const webhookProjection: Projection<WebhookRecord> = {
  name: 'webhooks',
  keyOf: ({ streamId, event }) => (streamId === WEBHOOKS_STREAM && TYPES.includes(event.type) ? (event.data as { id: string }).id : undefined),
  evolve: (doc, { event }) => {
    if (event.type === WEBHOOK_REGISTERED_TYPE) {
      const { id, url, event_types: eventTypes, clearance, data_access: dataAccess, description } = event.data as unknown as WebhookRegisteredData;
      return { id, url, eventTypes, clearance, dataAccess, description, enabled: true, createdAt: event.time, createdBy: event['im.actor'] ?? event.source };
    }
    if (event.type === WEBHOOK_DISABLED_TYPE) return doc && { ...doc, enabled: false };
    return undefined;
  },
  schema: documentSchema({
    fields: { createdAt: { type: 'text', path: ['createdAt'] } },
    indexes: [{ name: 'by_created', on: ['createdAt', 'key'] }],
  }),
};
