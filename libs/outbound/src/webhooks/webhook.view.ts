import type { WebhookRecord } from '@im/read-models';

/** A registration as GET shows it: never its secret. */
export interface WebhookView {
  id: string;
  url: string;
  event_types: string[];
  clearance: string;
  data_access: string[];
  description: string | null;
  enabled: boolean;
  created_at: string;
}

/** The answer to a registration: the only time the `secret` is shown. */
export type CreatedWebhook = WebhookView & { secret: string };

export const toWebhookView = (hook: WebhookRecord): WebhookView => ({
  id: hook.id,
  url: hook.url,
  event_types: hook.eventTypes,
  clearance: hook.clearance,
  data_access: hook.dataAccess,
  description: hook.description,
  enabled: hook.enabled,
  created_at: hook.createdAt,
});
