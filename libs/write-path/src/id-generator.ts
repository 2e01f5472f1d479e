import { randomBytes } from 'node:crypto';
import { v7 as timeOrderedUuid } from 'uuid';
import { INTEGRATION_KEY_ID_BYTES } from '@im/incidents';

/** Where fresh ids come from: injected, so tests can draw an id that is taken. */
export interface IdGenerator {
  /** INC- and 8 lowercase hex characters: drawn at random, so a draw may hit a taken id. */
  incidentId(): string;
  /**
   * Id of an event the service itself writes: a UUID of version 7, whose
   * leading bits are the time it was drawn. Its dedup key is then stored next
   * to the last ones drawn instead of on a random page of the key index: a
   * storm's commits wrote 24-36 % fewer bytes (docs/benchmarks.md).
   */
  eventId(): string;
  /** The public id of an integration key: 16 lowercase hex characters. */
  integrationKeyId(): string;
  /** The public id of a webhook registration: 16 lowercase hex characters. */
  webhookId(): string;
  /** The public id of a service, escalation policy, schedule or override: 16 lowercase hex characters. */
  oncallId(): string;
}

export const ID_GENERATOR = Symbol('ID_GENERATOR');

export const randomIds: IdGenerator = {
  incidentId: () => `INC-${randomBytes(4).toString('hex')}`,
  eventId: () => timeOrderedUuid(),
  integrationKeyId: () => randomBytes(INTEGRATION_KEY_ID_BYTES).toString('hex'),
  webhookId: () => randomBytes(8).toString('hex'),
  oncallId: () => randomBytes(8).toString('hex'),
};
