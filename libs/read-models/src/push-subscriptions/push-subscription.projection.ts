import { PUSH_SUBSCRIBED_TYPE, PUSH_UNSUBSCRIBED_TYPE, type PushSubscribedData, USER_STREAM_PREFIX } from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/** A responder's Web Push subscription, as the notifications send to it. */
export interface PushSubscriptionRecord {
  id: string;
  userId: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** The clearance of the token that registered it. */
  clearance: string;
  createdAt: string;
}

/** One document per subscription, from the responder's own stream; a removal deletes it. */
export const pushSubscriptionProjection: Projection<PushSubscriptionRecord> = {
  name: 'push_subscriptions',
  keyOf: ({ streamId, event }) =>
    streamId.startsWith(USER_STREAM_PREFIX) && (event.type === PUSH_SUBSCRIBED_TYPE || event.type === PUSH_UNSUBSCRIBED_TYPE) ? (event.data as { id: string }).id : undefined,
  evolve: (_, { streamId, event }) => {
    if (event.type !== PUSH_SUBSCRIBED_TYPE) return undefined;
    const { id, endpoint, keys, clearance } = event.data as unknown as PushSubscribedData;
    return { id, userId: streamId.slice(USER_STREAM_PREFIX.length), endpoint, keys, clearance, createdAt: event.time };
  },
  schema: documentSchema({
    fields: { userId: { type: 'text', path: ['userId'] }, createdAt: { type: 'text', path: ['createdAt'] } },
    indexes: [{ name: 'by_user', on: ['userId', 'createdAt', 'key'] }],
  }),
};
