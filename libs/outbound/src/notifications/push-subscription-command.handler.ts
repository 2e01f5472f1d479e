import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { InvalidError, type PushSubscriptionCommand, type PushUnsubscribedData } from '@im/incidents';
import { CommandHandler, userStreamWrites } from '@im/write-path';
import { BlockedAddressError, checkDestination } from '../webhooks/webhook-address';
import type { PushSubscriptionInput } from './push-subscription.input';

/** Who the ledger names when a push service said a subscription is gone. */
export const NOTIFICATIONS_ACTOR = 'notifications';

export interface RegisteredPushSubscription {
  id: string;
  endpoint: string;
  createdAt: string;
}

/** Registers and removes a responder's Web Push subscriptions, as events of their own stream (`user-<sub>`). */
@Injectable()
export class PushSubscriptionCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `clearance`: the registering token's; notifications of incidents withheld from it are not sent to this subscription. */
  async register(userId: string, input: PushSubscriptionInput, clearance: string): Promise<RegisteredPushSubscription> {
    await this.refuseBlocked(new URL(input.endpoint));
    const id = `ps_${randomBytes(12).toString('hex')}`;
    const { appended } = await this.decide(userId, userId, { kind: 'subscribe', id, ...input, clearance });
    return { id, endpoint: input.endpoint, createdAt: appended[appended.length - 1].time };
  }

  /** Another responder's subscription is not found (404), as one that does not exist. */
  async unregister(userId: string, id: string): Promise<void> {
    await this.decide(userId, userId, { kind: 'unsubscribe', id, reason: 'unregistered' });
  }

  /** The push service answered 404 or 410: nothing more is sent to it. */
  async remove(userId: string, id: string, reason: PushUnsubscribedData['reason']): Promise<void> {
    await this.decide(userId, NOTIFICATIONS_ACTOR, { kind: 'unsubscribe', id, reason }, false);
  }

  /** As webhook urls are (and checked again at each send): a push service is never on a private network, unless PUSH_ALLOW_PRIVATE_NETWORKS. */
  private async refuseBlocked(url: URL): Promise<void> {
    try {
      await checkDestination(url, this.config.notifications.allowPrivateNetworks, AbortSignal.timeout(this.config.notifications.timeoutMs));
    } catch (error) {
      if (error instanceof BlockedAddressError) throw new InvalidError(`endpoint is refused: ${error.message} (a push service is never on a loopback, private, link-local or metadata address)`);
      // A name that does not resolve now is checked again at each send.
    }
  }

  /** `wait`: answer once the read model shows the change (not for deliveries, which do not read it). */
  private decide(userId: string, actor: string, command: PushSubscriptionCommand, wait = true) {
    return this.commands.execute(userStreamWrites, userId, command, { envelope: this.commands.serviceEnvelope(actor), wait });
  }
}
