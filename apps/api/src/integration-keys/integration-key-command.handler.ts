import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  decideIntegrationKey,
  evolveIntegrationKeys,
  formatIntegrationKey,
  hashIntegrationKey,
  initialIntegrationKeysState,
  INTEGRATION_KEY_SECRET_BYTES,
  INTEGRATION_KEYS_STREAM,
  type IntegrationKeyCommand,
  type IntegrationKeyCreatedData,
  type IntegrationKeysState,
} from '@im/incidents';
import { CLOCK, type Clock, CommandHandler, ID_GENERATOR, type IdGenerator, ReadYourWrites, serviceEvent, type StreamModel } from '@im/write-path';
import type { Principal } from '@im/access';
import type { CreateIntegrationKeyInput } from './create-integration-key.body';
import type { CreatedIntegrationKey } from './integration-key.view';

/** The `integration-keys` stream, folded as decisions need it. */
const integrationKeysStream: StreamModel<IntegrationKeysState> = {
  subject: 'integration keys',
  initialState: initialIntegrationKeysState,
  evolve: (state, { event }) => evolveIntegrationKeys(state, event),
};

/**
 * Creates and revokes keys as events of the `integration-keys` stream, through
 * the one write path. Each answers once the read model shows the change, so
 * authentication, which reads it, agrees from the next request on.
 */
@Injectable()
export class IntegrationKeyCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    private readonly views: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async create(input: CreateIntegrationKeyInput, admin: Principal): Promise<CreatedIntegrationKey> {
    const id = this.ids.integrationKeyId();
    const key = formatIntegrationKey(id, randomBytes(INTEGRATION_KEY_SECRET_BYTES).toString('hex'));
    const { appended, position } = await this.decide({ kind: 'create', id, ...input, keyHash: hashIntegrationKey(key) }, admin);
    await this.views.waitFor(position);
    const { name, roles } = appended[0].data as unknown as IntegrationKeyCreatedData;
    return { id, name, roles, key, created_at: appended[0].time };
  }

  /** A revoked key stays revoked: revoking it again writes nothing and answers as the first time. */
  async revoke(id: string, admin: Principal): Promise<void> {
    const { position } = await this.decide({ kind: 'revoke', id }, admin);
    await this.views.waitFor(position);
  }

  private decide(command: IntegrationKeyCommand, admin: Principal) {
    return this.commands.handle(integrationKeysStream, INTEGRATION_KEYS_STREAM, (state) =>
      decideIntegrationKey(command, state).map((event) => serviceEvent(this.ids, this.clock, admin.sub, event)),
    );
  }
}
