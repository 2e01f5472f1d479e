import { Inject, Injectable } from '@nestjs/common';
import type { DataClass, Visibility } from '@im/cloudevents';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { InvalidError, WEBHOOKS_STREAM, type WebhookCommand, type WebhookRegisteredData } from '@im/incidents';
import { CommandHandler, ID_GENERATOR, type IdGenerator, webhookWrites } from '@im/write-path';
import { BlockedAddressError, checkDestination } from './webhook-address';
import { newWebhookSecret, sealWebhookSecret, WEBHOOK_SECRET_KEY } from './webhook-secret';
import type { CreatedWebhook } from './webhook.view';

/** A registration as parsed at the edge (create-webhook.body.ts). */
export interface CreateWebhookInput {
  url: URL;
  eventTypes: string[];
  clearance: Visibility;
  dataAccess: DataClass[];
  description: string | null;
}

/** Who the ledger names when deliveries disable a registration (an endpoint answered 410). */
export const WEBHOOK_DELIVERY_ACTOR = 'webhook-delivery';

/**
 * Registers, removes and disables webhooks as events of the `webhooks` stream,
 * through the one write path. Registering and removing answer once the read
 * model shows the change; a registration receives the events appended after
 * its own (its position in the ledger is where its deliveries start).
 */
@Injectable()
export class WebhookCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(WEBHOOK_SECRET_KEY) private readonly secretKey: Buffer,
  ) {}

  async register(input: CreateWebhookInput, actor: string): Promise<CreatedWebhook> {
    await this.refuseBlocked(input.url);
    const id = this.ids.webhookId();
    const secret = newWebhookSecret();
    const { url, eventTypes, clearance, dataAccess, description } = input;
    const command: WebhookCommand = { kind: 'register', id, url: url.href, eventTypes, clearance, dataAccess, description, sealedSecret: sealWebhookSecret(this.secretKey, id, secret) };
    const { appended } = await this.decide(command, actor);
    const data = appended[0].data as unknown as WebhookRegisteredData;
    return {
      id,
      url: data.url,
      event_types: data.event_types,
      clearance: data.clearance,
      data_access: data.data_access,
      description: data.description,
      enabled: true,
      created_at: appended[0].time,
      secret,
    };
  }

  async remove(id: string, actor: string): Promise<void> {
    await this.decide({ kind: 'remove', id }, actor);
  }

  /** Deliveries stop for good (the endpoint answered 410 Gone); the registration stays listed with `enabled: false`. */
  async disable(id: string, reason: string): Promise<void> {
    await this.decide({ kind: 'disable', id, reason }, WEBHOOK_DELIVERY_ACTOR, false);
  }

  /** A host that is, or resolves to, a private address is refused; one that does not resolve yet is checked again at each delivery. */
  private async refuseBlocked(url: URL): Promise<void> {
    try {
      await checkDestination(url, this.config.webhooks.allowPrivateNetworks, AbortSignal.timeout(this.config.webhooks.timeoutMs));
    } catch (error) {
      if (error instanceof BlockedAddressError) {
        throw new InvalidError(`url is refused: ${error.message} (loopback, private, link-local, unique-local and metadata addresses cannot receive webhooks)`);
      }
    }
  }

  /** `wait`: answer once the read model shows the change (not for deliveries, which do not read it). */
  private decide(command: WebhookCommand, actor: string, wait = true) {
    return this.commands.execute(webhookWrites, WEBHOOKS_STREAM, command, { envelope: this.commands.serviceEnvelope(actor), wait });
  }
}
