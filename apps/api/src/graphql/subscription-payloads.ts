import { GraphQLError } from 'graphql';
import { codedGraphqlError } from '../errors/http-error.filter';
import { SlowConsumerError } from '../live/live-stream';

/** The code of a subscription ended because its subscriber fell too far behind; the socket server closes that socket. */
export const SLOW_CONSUMER = 'SLOW_CONSUMER';

const errorOf = (error: unknown) =>
  error instanceof SlowConsumerError ? new GraphQLError(error.message, { extensions: { code: SLOW_CONSUMER } }) : codedGraphqlError(error);

type Payload<R> = Record<string, R | Error>;

/**
 * A feed's items as the payloads of one subscription field: each item mapped
 * for the subscriber (undefined: not for this subscriber, skipped). A failure
 * of the feed or of the mapping (the PDP unavailable, a subscriber too slow)
 * ends the subscription with one payload holding the coded error in place of
 * the field, which GraphQL answers as that error with no data; then it
 * completes. `return()` (the client completed, the socket closed) ends the
 * feed at once, even while it waits for an item.
 */
export function subscriptionPayloads<T, R>(
  field: string,
  source: AsyncIterator<T>,
  map: (item: T) => R | undefined | Promise<R | undefined>,
): AsyncIterableIterator<Payload<R>> {
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
          const value = await map(item.value);
          if (ended) break;
          if (value !== undefined) return { done: false, value: { [field]: value } };
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
