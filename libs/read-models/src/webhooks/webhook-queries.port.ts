import type { WebhookRecord } from './webhook.projection';

/** Nest injection token of the WebhookQueries port. */
export const WEBHOOK_QUERIES = Symbol('WEBHOOK_QUERIES');

/** Query side of the webhook registrations read model. */
export interface WebhookQueries {
  /** The registration with this id; undefined when none exists (or it was removed). */
  findById(id: string): Promise<WebhookRecord | undefined>;
  /** Every current registration, oldest first (ties by id): an administrator's handful, not paged. */
  list(): Promise<WebhookRecord[]>;
}
