import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  formatIntegrationKey,
  hashIntegrationKey,
  INTEGRATION_KEY_SECRET_BYTES,
  INTEGRATION_KEYS_STREAM,
  InvalidError,
  type IntegrationKeyCommand,
  type IntegrationKeyCreatedData,
} from '@im/incidents';
import { CommandHandler, ID_GENERATOR, type IdGenerator, integrationKeyWrites } from '@im/write-path';
import type { Principal } from '@im/access';
import { ONCALL_QUERIES, type OncallQueries } from '@im/read-models';
import type { CreateIntegrationKeyInput } from './create-integration-key.body';
import type { CreatedIntegrationKey } from './integration-key.view';

/**
 * Creates and revokes keys as events of the `integration-keys` stream, through
 * the one write path. Each answers once the read model shows the change, so
 * authentication, which reads it, agrees from the next request on.
 */
@Injectable()
export class IntegrationKeyCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
  ) {}

  async create(input: CreateIntegrationKeyInput, admin: Principal): Promise<CreatedIntegrationKey> {
    // The service lives on another stream: a service deleted after this check leaves the key naming none that exists (docs/decisions.md, "On call").
    if (input.serviceId !== undefined && !(await this.oncall.services.findById(input.serviceId))) {
      throw new InvalidError(`service_id: service ${input.serviceId} not found`);
    }
    const id = this.ids.integrationKeyId();
    const key = formatIntegrationKey(id, randomBytes(INTEGRATION_KEY_SECRET_BYTES).toString('hex'));
    const { appended } = await this.decide({ kind: 'create', id, ...input, keyHash: hashIntegrationKey(key) }, admin);
    const { name, roles, service_id: serviceId = null } = appended[0].data as unknown as IntegrationKeyCreatedData;
    return { id, name, roles, service_id: serviceId, key, created_at: appended[0].time };
  }

  /** A revoked key stays revoked: revoking it again writes nothing and answers as the first time. */
  async revoke(id: string, admin: Principal): Promise<void> {
    await this.decide({ kind: 'revoke', id }, admin);
  }

  private decide(command: IntegrationKeyCommand, admin: Principal) {
    return this.commands.execute(integrationKeyWrites, INTEGRATION_KEYS_STREAM, command, { envelope: this.commands.serviceEnvelope(admin.sub) });
  }
}
