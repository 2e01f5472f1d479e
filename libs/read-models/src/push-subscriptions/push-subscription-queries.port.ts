import type { PushSubscriptionRecord } from './push-subscription.projection';

/** Nest injection token of the PushSubscriptionQueries port. */
export const PUSH_SUBSCRIPTION_QUERIES = Symbol('PUSH_SUBSCRIPTION_QUERIES');

/** Query side of the push subscriptions read model. */
export interface PushSubscriptionQueries {
  /** The responder's subscriptions, oldest first. */
  listByUser(userId: string): Promise<PushSubscriptionRecord[]>;
}
