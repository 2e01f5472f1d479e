import {
  ANY,
  type AppendStreamRequest,
  type AppendStreamState,
  type EventData,
  type Filter,
  jsonEvent,
  type KurrentDBClient,
  NO_STREAM,
  type Position,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { Readable } from 'node:stream';

interface StoredEvent {
  streamId: string;
  id: string;
  type: string;
  data: unknown;
  metadata?: unknown;
  isJson: true;
  revision: bigint;
  position: Position;
  created: Date;
}

interface LiveSubscription {
  stream: Readable;
  prefixes: readonly string[];
}

const prefixesOf = (filter?: Filter) => (filter && 'prefixes' in filter ? filter.prefixes : ['']);
const matches = (event: StoredEvent, prefixes: readonly string[]) => prefixes.some((prefix) => event.streamId.startsWith(prefix));
const at = (position: Position) => position.commit;

/**
 * A KurrentDB server in memory, behind the methods of the real client the
 * adapter calls, with the server's documented write semantics: expected
 * states any / no_stream / stream_exists / a revision; an append whose events
 * are all already in the stream (same event ids) answers an idempotent success
 * instead of a conflict; a multi-stream append writes all streams or none and
 * reports a conflict as the client does (WrongExpectedVersionError naming the
 * stream). Reads and subscriptions honour a stream-name prefix filter, and
 * `fromPosition` is inclusive. Positions are whole numbers (commit = prepare).
 */
export class KurrentDbStandIn {
  readonly log: StoredEvent[] = [];
  readonly multiStreamAppends: AppendStreamRequest[][] = [];
  private readonly live = new Set<LiveSubscription>();

  /** A client on this server; closing it (dispose) leaves the data for the next one. */
  client(): KurrentDBClient {
    const opened = new Set<LiveSubscription>();
    const client = {
      appendToStream: async (streamName: string, events: EventData | EventData[], options: { streamState?: AppendStreamState } = {}) => {
        const list = Array.isArray(events) ? events : [events];
        const revision = this.apply([{ streamName, events: list, expectedState: options.streamState ?? ANY }])[0];
        return { success: true, nextExpectedRevision: revision, position: this.log[this.log.length - 1].position };
      },
      multiStreamAppend: async (requests: AppendStreamRequest[]) => {
        this.multiStreamAppends.push(requests);
        const revisions = this.apply(requests);
        return {
          position: at(this.log[this.log.length - 1].position),
          responses: requests.map((request, i) => ({ streamName: request.streamName, revision: revisions[i] })),
        };
      },
      // Stream metadata is an event in the stream's metadata stream, as on the server.
      setStreamMetadata: async (streamName: string, metadata: Record<string, unknown>) =>
        this.apply([{ streamName: `$$${streamName}`, events: [jsonEvent({ type: '$metadata', data: metadata })], expectedState: ANY }]),
      readStream: (streamName: string, options: { fromRevision?: 'start' | 'end' | bigint; maxCount?: number; direction?: 'forwards' | 'backwards' } = {}) =>
        this.readStream(streamName, options),
      readAll: (options: { fromPosition?: 'start' | 'end' | Position; maxCount?: number; direction?: 'forwards' | 'backwards'; filter?: Filter } = {}) =>
        this.readAll(options),
      subscribeToAll: (options: { fromPosition?: 'start' | Position; filter?: Filter } = {}) => {
        const subscription = this.subscribe(options);
        opened.add(subscription);
        return subscription.stream;
      },
      dispose: async () => {
        for (const subscription of opened) {
          this.live.delete(subscription);
          subscription.stream.destroy(new Error('client disposed'));
        }
      },
    };
    return client as unknown as KurrentDBClient;
  }

  private lastRevision(streamName: string): bigint | undefined {
    for (let i = this.log.length - 1; i >= 0; i--) if (this.log[i].streamId === streamName) return this.log[i].revision;
    return undefined;
  }

  /** Checks every stream first, then writes all of them: one atomic step. Returns each stream's last revision. */
  private apply(requests: AppendStreamRequest[]): bigint[] {
    const repeats = requests.map((request) => {
      const actual = this.lastRevision(request.streamName);
      const expected = request.expectedState;
      const fits =
        expected === ANY ||
        (expected === NO_STREAM && actual === undefined) ||
        (expected === STREAM_EXISTS && actual !== undefined) ||
        (typeof expected === 'bigint' && actual === expected);
      if (fits) return false;
      const stored = new Set(this.log.filter((event) => event.streamId === request.streamName).map((event) => event.id));
      if (request.events.every((event) => stored.has(event.id))) return true;
      throw new WrongExpectedVersionError(undefined, { streamName: request.streamName, expected, current: actual ?? NO_STREAM });
    });
    return requests.map((request, i) => {
      if (repeats[i]) return this.lastRevision(request.streamName)!;
      for (const event of request.events) {
        const revision = (this.lastRevision(request.streamName) ?? -1n) + 1n;
        const n = BigInt(this.log.length + 1);
        // Event metadata as the client reads it back: the JSON object the append sent.
        const metadata = event.metadata === undefined ? undefined : JSON.parse(JSON.stringify(event.metadata));
        const stored: StoredEvent = { streamId: request.streamName, id: event.id, type: event.type, data: event.data, metadata, isJson: true, revision, position: { commit: n, prepare: n }, created: new Date() };
        this.log.push(stored);
        for (const subscription of this.live) if (matches(stored, subscription.prefixes)) subscription.stream.push({ event: stored });
      }
      return this.lastRevision(request.streamName)!;
    });
  }

  private async *readStream(
    streamName: string,
    { fromRevision = 'start', maxCount = Infinity, direction = 'forwards' }: { fromRevision?: 'start' | 'end' | bigint; maxCount?: number; direction?: 'forwards' | 'backwards' },
  ) {
    const events = this.log.filter((event) => event.streamId === streamName);
    if (events.length === 0) throw new StreamNotFoundError(undefined, streamName);
    if (direction === 'backwards') {
      const from = typeof fromRevision === 'bigint' ? fromRevision : events[events.length - 1].revision;
      for (const event of events.filter((e) => e.revision <= from).reverse().slice(0, maxCount)) yield { event };
      return;
    }
    const from = typeof fromRevision === 'bigint' ? fromRevision : 0n;
    for (const event of events.filter((e) => e.revision >= from).slice(0, maxCount)) yield { event };
  }

  private async *readAll({
    fromPosition = 'start',
    maxCount = Infinity,
    direction = 'forwards',
    filter,
  }: {
    fromPosition?: 'start' | 'end' | Position;
    maxCount?: number;
    direction?: 'forwards' | 'backwards';
    filter?: Filter;
  }) {
    const prefixes = prefixesOf(filter);
    let events = this.log.filter((event) => matches(event, prefixes));
    if (direction === 'backwards') events = events.reverse();
    else if (typeof fromPosition === 'object') events = events.filter((event) => at(event.position) >= at(fromPosition));
    for (const event of events.slice(0, maxCount)) yield { event };
  }

  private subscribe({ fromPosition = 'start', filter }: { fromPosition?: 'start' | Position; filter?: Filter }): LiveSubscription {
    const prefixes = prefixesOf(filter);
    const stream = Object.assign(new Readable({ objectMode: true, read: () => undefined }), {
      unsubscribe: async () => {
        this.live.delete(subscription);
      },
    });
    const subscription: LiveSubscription = { stream, prefixes };
    const from = fromPosition === 'start' ? 0n : at(fromPosition);
    for (const event of this.log) if (at(event.position) >= from && matches(event, prefixes)) stream.push({ event });
    this.live.add(subscription);
    return subscription;
  }
}
