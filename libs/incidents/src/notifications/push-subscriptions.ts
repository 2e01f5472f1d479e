import { NotFoundError } from '../domain-errors';

/** Events of a responder's stream (`user-<sub>`): their Web Push subscriptions. */
export const PUSH_SUBSCRIBED_TYPE = 'im.user.push_subscribed';
export const PUSH_UNSUBSCRIBED_TYPE = 'im.user.push_unsubscribed';

export interface PushSubscribedData {
  id: string;
  endpoint: string;
  /** RFC 8291: the client's P-256 public key and authentication secret, base64url. */
  keys: { p256dh: string; auth: string };
  /** The clearance of the token that registered it: notifications of incidents withheld from it are not sent to it. */
  clearance: string;
}

export interface PushUnsubscribedData {
  id: string;
  /** `unregistered` (the responder), `gone` (the push service answered 404 or 410), `replaced` (registered again). */
  reason: 'unregistered' | 'gone' | 'replaced';
}

/** A responder's subscriptions, by id: what the decisions below need. */
export type PushSubscriptionsState = ReadonlyMap<string, { endpoint: string }>;

export const initialPushSubscriptionsState: PushSubscriptionsState = new Map();

export type PushSubscriptionEvent =
  | { type: typeof PUSH_SUBSCRIBED_TYPE; data: PushSubscribedData }
  | { type: typeof PUSH_UNSUBSCRIBED_TYPE; data: PushUnsubscribedData };

export function evolvePushSubscriptions(state: PushSubscriptionsState, event: { type: string; data?: object }): PushSubscriptionsState {
  const data = event.data as { id?: string; endpoint?: string } | undefined;
  if (typeof data?.id !== 'string') return state;
  const next = new Map(state);
  if (event.type === PUSH_SUBSCRIBED_TYPE && typeof data.endpoint === 'string') next.set(data.id, { endpoint: data.endpoint });
  else if (event.type === PUSH_UNSUBSCRIBED_TYPE) next.delete(data.id);
  else return state;
  return next;
}

/** A browser registering the endpoint it already has (with fresh keys) replaces it: one subscription per endpoint. */
export function decideSubscribe(subscription: PushSubscribedData, state: PushSubscriptionsState): PushSubscriptionEvent[] {
  const replaced = [...state].filter(([, { endpoint }]) => endpoint === subscription.endpoint);
  return [
    ...replaced.map(([id]): PushSubscriptionEvent => ({ type: PUSH_UNSUBSCRIBED_TYPE, data: { id, reason: 'replaced' } })),
    { type: PUSH_SUBSCRIBED_TYPE, data: subscription },
  ];
}

/** Another responder's subscription, or one removed already, is not found; removed by a push service's 404/410, nothing more happens. */
export function decideUnsubscribe(id: string, reason: PushUnsubscribedData['reason'], state: PushSubscriptionsState): PushSubscriptionEvent[] {
  if (!state.has(id)) {
    if (reason === 'gone') return [];
    throw new NotFoundError(`Push subscription ${id} not found`);
  }
  return [{ type: PUSH_UNSUBSCRIBED_TYPE, data: { id, reason } }];
}

export type PushSubscriptionCommand =
  | ({ kind: 'subscribe' } & PushSubscribedData)
  | ({ kind: 'unsubscribe' } & PushUnsubscribedData);

export function decidePushSubscription(command: PushSubscriptionCommand, state: PushSubscriptionsState): PushSubscriptionEvent[] {
  if (command.kind === 'unsubscribe') return decideUnsubscribe(command.id, command.reason, state);
  const { kind: _, ...subscription } = command;
  return decideSubscribe(subscription, state);
}
