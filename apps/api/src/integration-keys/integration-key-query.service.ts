import { Inject, Injectable } from '@nestjs/common';
import {
  INTEGRATION_KEY_HISTORY_QUERIES,
  INTEGRATION_KEY_QUERIES,
  type IntegrationKeyHistoryQueries,
  type IntegrationKeyQueries,
} from '@im/read-models';
import { toIntegrationKeyEventView, toIntegrationKeyView } from './integration-key.view';

/** What an integrations admin reads: the keys and their history, each from its read model. */
@Injectable()
export class IntegrationKeyQueryService {
  constructor(
    @Inject(INTEGRATION_KEY_QUERIES) private readonly keys: IntegrationKeyQueries,
    @Inject(INTEGRATION_KEY_HISTORY_QUERIES) private readonly history: IntegrationKeyHistoryQueries,
  ) {}

  async list() {
    return (await this.keys.list()).map(toIntegrationKeyView);
  }

  /** Every create and revoke of the `integration-keys` stream, oldest first (an administrator's handful: not paged). */
  async events() {
    return (await this.history.list()).map(toIntegrationKeyEventView);
  }
}
