import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { INTEGRATION_KEYS_STREAM } from '@im/incidents';
import { INTEGRATION_KEY_QUERIES, type IntegrationKeyQueries } from '@im/read-models';
import { toIntegrationKeyEventView, toIntegrationKeyView } from './integration-key.view';

/** What an integrations admin reads: the keys (read model) and their history (the ledger itself). */
@Injectable()
export class IntegrationKeyQueryService {
  constructor(
    @Inject(INTEGRATION_KEY_QUERIES) private readonly keys: IntegrationKeyQueries,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
  ) {}

  async list() {
    return (await this.keys.list()).map(toIntegrationKeyView);
  }

  /** Every create and revoke, oldest first, as the ledger holds them (an administrator's handful: not paged). */
  async events() {
    return (await this.eventStore.readStream(INTEGRATION_KEYS_STREAM)).map(toIntegrationKeyEventView);
  }
}
