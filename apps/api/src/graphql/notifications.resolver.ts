import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { Principal } from '@im/access';
import { parsePushSubscriptionInput, PushSubscriptionCommandHandler } from '@im/outbound';
import { NotificationQueryService } from '../notifications/notification-query.service';
import { GqlPrincipal } from './graphql-context';
import { parseNotificationsLimit } from './notifications.args';
import { toGqlNotification } from './schema.mapping';
import {
  Notification,
  NOTIFICATIONS_DEFAULT_LIMIT,
  PushSubscription,
  PushSubscriptionInput,
} from './notifications.types';

/** A responder's own notifications and push subscriptions: every operation acts on the caller only. */
@Resolver()
export class NotificationsResolver {
  constructor(
    private readonly decisions: NotificationQueryService,
    private readonly subscriptions: PushSubscriptionCommandHandler,
  ) {}

  @Query(() => [Notification], {
    description: "The caller's notification decisions, newest first: sent, held until quiet hours end, suppressed and why, failed",
    complexity: ({ args, childComplexity }) => (args.limit ?? NOTIFICATIONS_DEFAULT_LIMIT) * childComplexity,
  })
  async notifications(
    @GqlPrincipal() caller: Principal,
    @Args('limit', { type: () => Int, nullable: true, defaultValue: NOTIFICATIONS_DEFAULT_LIMIT }) requested: number | null,
  ): Promise<Notification[]> {
    const records = await this.decisions.listMine(caller.sub, parseNotificationsLimit(requested));
    return records.map(toGqlNotification);
  }

  @Mutation(() => PushSubscription, { description: "Registers the caller's browser for Web Push (the same endpoint again replaces it)" })
  async registerPushSubscription(@Args('input') input: PushSubscriptionInput, @GqlPrincipal() caller: Principal): Promise<PushSubscription> {
    const registered = await this.subscriptions.register(caller.sub, parsePushSubscriptionInput(input), caller.clearance);
    return { ...registered, createdAt: new Date(registered.createdAt) };
  }

  @Mutation(() => Boolean, { description: "Removes one of the caller's push subscriptions (NOT_FOUND for any other)" })
  async unregisterPushSubscription(@Args('id', { type: () => ID }) id: string, @GqlPrincipal() caller: Principal): Promise<boolean> {
    await this.subscriptions.unregister(caller.sub, id);
    return true;
  }
}
