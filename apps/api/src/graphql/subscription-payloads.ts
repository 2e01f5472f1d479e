import { GraphQLError } from 'graphql';
import { codedGraphqlError } from '../errors/http-error.filter';
import { SlowConsumerError } from '../live/live-stream';

/** The code of a subscription ended because its subscriber fell too far behind; the socket server closes that socket. */
export const SLOW_CONSUMER = 'SLOW_CONSUMER';

const errorOf = (error: unknown) =>
  error instanceof SlowConsumerError ? new GraphQLError(error.message, { extensions: { code: SLOW_CONSUMER } }) : codedGraphqlError(error);

type Payload<R> = Record<string, R | Error>;

/**
 * Payloads already built, per feed item and `shareAs`. LiveFeed offers one item
 * object to the subscribers of one policy input only, so subscriptions that
 * map it the same way (the same `shareAs`) share the payload, and through it
 * its execution (shared-execution.ts).
 */
const shared = new WeakMap<object, Map<string, Promise<Payload<unknown> | undefined>>>();

function sharedPayload<T extends object, R>(item: T, shareAs: string, build: () => Promise<Payload<R> | undefined>): Promise<Payload<R> | undefined> {
  let byKey = shared.get(item);
  if (!byKey) shared.set(item, (byKey = new Map()));
  let payload = byKey.get(shareAs) as Promise<Payload<R> | undefined> | undefined;
  if (!payload) byKey.set(shareAs, (payload = build()));
  return payload;
}

/**
 * A feed's items as the payloads of one subscription field: each item mapped
 * for the subscriber (undefined: not for this subscriber, skipped). A failure
 * of the feed or of the mapping (the PDP unavailable, a subscriber too slow)
 * ends the subscription with one payload holding the coded error in place of
 * the field, which GraphQL answers as that error with no data; then it
 * completes. `return()` (the client completed, the socket closed) ends the
 * feed at once, even while it waits for an item.
 */
export function subscriptionPayloads<T extends object, R>(
  field: string,
  source: AsyncIterator<T>,
  /** What `map` depends on besides the item: subscriptions with the same key share each item's payload. */
  shareAs: string,
  map: (item: T) => R | undefined | Promise<R | undefined>,
): AsyncIterableIterator<Payload<R>> {
  const payloadOf = (item: T) =>
    sharedPayload(item, `${field}\n${shareAs}`, async () => {
      const value = await map(item);
      return value === undefined ? undefined : { [field]: value };
    });
  let ended = false;
  const done = (): IteratorResult<Payload<R>> => ({ done: true, value: undefined });
  const end = async () => {
    if (ended) return done();
    ended = true;
    await source.return?.();
    return done();
  };
  return {
    async next() {
      while (!ended) {
        try {
          const item = await source.next();
          if (item.done) return end();
          const payload = await payloadOf(item.value);
          if (ended) break;
          if (payload !== undefined) return { done: false, value: payload };
        } catch (error) {
          if (ended) break;
          await end();
          return { done: false, value: { [field]: errorOf(error) } };
        }
      }
      return done();
    },
    return: end,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
