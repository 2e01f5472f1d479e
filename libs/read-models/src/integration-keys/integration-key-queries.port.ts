import type { IntegrationKeyRecord } from './integration-key.projection';

/** Nest injection token of the IntegrationKeyQueries port. */
export const INTEGRATION_KEY_QUERIES = Symbol('INTEGRATION_KEY_QUERIES');

/** Query side of the integration keys read model. */
export interface IntegrationKeyQueries {
  /** The key with this id, revoked or not; undefined when none was created. */
  findById(id: string): Promise<IntegrationKeyRecord | undefined>;
  /** Every key ever created, oldest first (ties by id): an administrator's handful, not paged. */
  list(): Promise<IntegrationKeyRecord[]>;
}
