import type { IntegrationKeyHistoryEntry } from './integration-key-history.projection';

/** Nest injection token of the IntegrationKeyHistoryQueries port. */
export const INTEGRATION_KEY_HISTORY_QUERIES = Symbol('INTEGRATION_KEY_HISTORY_QUERIES');

/** Query side of the integration key history read model. */
export interface IntegrationKeyHistoryQueries {
  /** Every create and revoke, in log order (oldest first): an administrator's handful, not paged. */
  list(): Promise<IntegrationKeyHistoryEntry[]>;
}
