import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import {
  decideSubscribe,
  decideUnsubscribe,
  evolvePushSubscriptions,
  initialPushSubscriptionsState,
  InvalidError,
  type PushSubscriptionEvent,
  type PushSubscriptionsState,
  type PushUnsubscribedData,
  userStreamId,
} from '@im/incidents';
import { CLOCK, type Clock, CommandHandler, ID_GENERATOR, type IdGenerator, ReadYourWrites, serviceEvent, type StreamModel } from '@im/write-path';
import { BlockedAddressError, checkDestination } from '../webhooks/webhook-address';
import type { PushSubscriptionInput } from './push-subscription.input';

/** The responder's stream, folded for their push subscriptions (their preferences live on the same stream). */
const subscriptionsStream: StreamModel<PushSubscriptionsState> = {
  subject: 'push subscriptions',
  initialState: initialPushSubscriptionsState,
  evolve: (state, { event }) => evolvePushSubscriptions(state, event),
};

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
    private readonly views: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `clearance`: the registering token's; notifications of incidents withheld from it are not sent to this subscription. */
  async register(userId: string, input: PushSubscriptionInput, clearance: string): Promise<RegisteredPushSubscription> {
    await this.refuseBlocked(new URL(input.endpoint));
    const id = `ps_${randomBytes(12).toString('hex')}`;
    const { appended, position } = await this.decide(userId, userId, (state) => decideSubscribe({ id, ...input, clearance }, state));
    await this.views.waitFor(position);
    return { id, endpoint: input.endpoint, createdAt: appended[appended.length - 1].time };
  }

  /** Another responder's subscription is not found (404), as one that does not exist. */
  async unregister(userId: string, id: string): Promise<void> {
    const { position } = await this.decide(userId, userId, (state) => decideUnsubscribe(id, 'unregistered', state));
    await this.views.waitFor(position);
  }

  /** The push service answered 404 or 410: nothing more is sent to it. */
  async remove(userId: string, id: string, reason: PushUnsubscribedData['reason']): Promise<void> {
    await this.decide(userId, NOTIFICATIONS_ACTOR, (state) => decideUnsubscribe(id, reason, state));
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

  private decide(userId: string, actor: string, decide: (state: PushSubscriptionsState) => PushSubscriptionEvent[]) {
    return this.commands.handle(subscriptionsStream, userStreamId(userId), (state) =>
      decide(state).map((event) => serviceEvent(this.ids, this.clock, actor, event)),
    );
  }
}
