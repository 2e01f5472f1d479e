import type { EventStore, RecordedEvent } from '@im/event-store';

export interface Folded<S> {
  state: S;
  /** Revision of the last event folded in; -1n for an empty stream. */
  revision: bigint;
  /** Log position of that event; 0n for an empty stream. */
  position: bigint;
}

const CACHED_STREAMS = 10_000;

/**
 * The folded state of streams, kept per stream. Streams are append-only, so
 * bringing a state up to date reads only the events after its revision: what
 * a caller pays does not grow with the stream's length.
 */
export class FoldedStreams<S> {
  /** Least recently refreshed first (a Map keeps insertion order). */
  private readonly cache = new Map<string, Folded<S>>();

  constructor(
    private readonly eventStore: EventStore,
    readonly fold: (state: S, recorded: RecordedEvent) => S,
    private readonly initial: S,
  ) {}

  /** The stream's state as the store holds it now. */
  async current(streamId: string): Promise<Folded<S>> {
    const cached = this.cache.get(streamId) ?? { state: this.initial, revision: -1n, position: 0n };
    const newer = await this.eventStore.readStream(streamId, cached.revision + 1n);
    return this.remember(streamId, this.advance(cached, newer));
  }

  /** `folded` with `recorded` (the events right after it) folded in. */
  advance(folded: Folded<S>, recorded: RecordedEvent[]): Folded<S> {
    if (recorded.length === 0) return folded;
    const last = recorded[recorded.length - 1];
    return { state: recorded.reduce(this.fold, folded.state), revision: last.revision, position: last.position };
  }

  /** Keeps `folded` unless a concurrent reader already cached a newer state; answers `folded`. */
  remember(streamId: string, folded: Folded<S>): Folded<S> {
    const cached = this.cache.get(streamId);
    if (cached && cached.revision > folded.revision) return folded;
    this.cache.delete(streamId);
    this.cache.set(streamId, folded);
    if (this.cache.size > CACHED_STREAMS) this.cache.delete(this.cache.keys().next().value as string);
    return folded;
  }
}
