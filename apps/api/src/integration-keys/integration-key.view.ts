import type { CloudEvent } from '@im/cloudevents';
import type { IntegrationKeyHistoryEntry, IntegrationKeyRecord } from '@im/read-models';

/** A key as the admin's list shows it: never its secret, nor its hash. */
export interface IntegrationKeyView {
  id: string;
  name: string;
  roles: string[];
  created_at: string;
  created_by: string;
  revoked_at: string | null;
  revoked_by: string | null;
  service_id: string | null;
}

/** The answer to a create: the only time the secret `key` is shown. */
export interface CreatedIntegrationKey {
  id: string;
  name: string;
  roles: string[];
  service_id: string | null;
  key: string;
  created_at: string;
}

export const toIntegrationKeyView = (key: IntegrationKeyRecord): IntegrationKeyView => ({
  id: key.id,
  name: key.name,
  roles: key.roles,
  created_at: key.createdAt,
  created_by: key.createdBy,
  revoked_at: key.revokedAt,
  revoked_by: key.revokedBy,
  service_id: key.serviceId ?? null,
});

/** A ledger event of the `integration-keys` stream as listed: the CloudEvent (the history holds no hash), and when the ledger stored it. */
export const toIntegrationKeyEventView = ({ event, recordedAt }: IntegrationKeyHistoryEntry): CloudEvent & { recorded_at: string } => ({
  ...event,
  recorded_at: recordedAt,
});
