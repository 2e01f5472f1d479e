import type { ExpectedRevision, StreamAppend } from './event-store.port';

/**
 * Why an append cannot even be tried, if it cannot: nothing to append, a
 * stream named twice, or a dedup key given to two parts. Every adapter refuses
 * these up front, with these words, before it touches its storage.
 */
export function malformedAppend(appends: readonly Pick<StreamAppend, 'streamId' | 'events' | 'dedupKeys'>[]): Error | undefined {
  if (appends.length === 0 || appends.some(({ events }) => events.length === 0)) return new Error('Nothing to append');
  if (new Set(appends.map(({ streamId }) => streamId)).size < appends.length) return new Error('A stream is named twice in one append');
  // A key repeated within one part is recorded once; only two parts sharing one are refused.
  const keys = appends.flatMap(({ dedupKeys = [] }) => [...new Set(dedupKeys)]);
  if (new Set(keys).size < keys.length) return new Error('A dedup key is given to two parts of one append');
  return undefined;
}

/** Whether a stream at `actual` (its last revision, or no_stream) is where an append expecting `expected` may go. */
export function revisionMatches(expected: ExpectedRevision, actual: bigint | 'no_stream'): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}
