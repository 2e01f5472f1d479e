import {
  ANY,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendStreamRequest,
  type AppendStreamState,
  BACKWARDS,
  END,
  type EventData,
  type Filter,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  type Position,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CloudEvent } from '@im/cloudevents';
import type { ChainHeads, LedgerRecord } from '@im/ledger-proof';
import {
  type AppendOptions,
  type AppendResult,
  DuplicateEventError,
  type EventStore,
  type ExpectedRevision,
  type LogHandler,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
  WrongExpectedRevisionError,
} from '../../event-store.port';
import { malformedAppend } from '../../append-checks';
import { chainLedger, headsAfter } from '../../ledger-chaining';

/**
 * A log position as one bigint: commit position in the high 64 bits, prepare
 * in the low 64. It orders exactly as $all does and turns back into the
 * client's {commit, prepare} without assuming the two are equal.
 */
export const packPosition = ({ commit, prepare }: Position): bigint => (commit << 64n) | prepare;
export const unpackPosition = (packed: bigint): Position => ({ commit: packed >> 64n, prepare: packed & 0xffff_ffff_ffff_ffffn });

const DEDUP_STREAM_PREFIX = 'dedup-';
/** Never appended to: a probe at stream_exists is refused by the leader's commit check, so it proves writes without making one. */
const WRITE_PROBE_STREAM_PREFIX = 'write-probe-';
const RESERVATION_TYPE = 'im.dedup.reservation';
/** Pause before resubscribing after the call ended or failed: doubles from the first to the last, back to the first once events flow. */
export const RESUBSCRIBE_DELAY_MS = { first: 100, max: 5000 } as const;
/** Most events the subscription buffers, and so hands the handler in one call. */
const SUBSCRIPTION_BATCH = 500;

export interface KurrentDbOptions {
  /**
   * Stream-name prefixes of every stream the caller appends to and reads back:
   * $all is filtered to them on the server (system streams, other applications
   * and the dedup reservations stay out of readAll, headPosition and subscriptions).
   */
  streamPrefixes: readonly string[];
}

/** The CloudEvent id is not a UUID in general; KurrentDB event ids must be, so one is derived (name-based, v5-style). */
export function eventUuid(event: CloudEvent, streamId: string): string {
  const hash = createHash('sha1').update(`${streamId}\n${event.source}\n${event.id}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const dedupStreamId = (key: string) => `${DEDUP_STREAM_PREFIX}${createHash('sha256').update(key).digest('hex')}`;

function streamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      return expected;
  }
}

/**
 * The event metadata property holding the ledger record (JSON text: a multi-stream append
 * takes only string properties). The stream's last event's record holds its chain heads.
 */
const LEDGER_METADATA = 'im.ledger';

const ledgerOf = (metadata: unknown): LedgerRecord | undefined => {
  const text = (metadata as Record<string, unknown> | undefined)?.[LEDGER_METADATA];
  return typeof text === 'string' ? (JSON.parse(text) as LedgerRecord) : undefined;
};

/** Appends that another writer overtook between reading the stream's last event and appending after it, retried from the new last event. */
const LEDGER_RETRIES = 10;

/** The state an append is made at so that no other append lands between the last event read and it. */
function pinned(expected: ExpectedRevision, last: bigint | undefined): ExpectedRevision {
  if (expected === 'any' || (expected === 'stream_exists' && last !== undefined)) return last ?? 'no_stream';
  return expected;
}

/** One stream's part of an append, ready to send. */
interface PinnedPart {
  streamId: string;
  expected: ExpectedRevision;
  /** `expected`, or the revision of the stream's last event where `expected` would allow another append in between. */
  state: ExpectedRevision;
  records: EventData[];
  keys: string[];
}

/** What a reservation records: the event that took the key. */
interface Reservation {
  streamId: string;
  eventUuid: string;
}

/**
 * KurrentDB adapter (server 25.1 or later). Streams map one to one; the
 * CloudEvent is the event's JSON data.
 *
 * Each dedup key owns a stream `dedup-<sha256(key)>` holding one reservation.
 * An append with dedup keys, or to several streams (appendMulti), is one
 * atomic multi-stream append: a reservation to every key's stream at
 * `no_stream`, and the events to each target at its expected state. Either all
 * are written or none, so a taken key (or a stale revision) refuses the whole append. Each reservation has a fresh event id:
 * the server answers a repeated event id with an idempotent success instead of
 * a conflict, which would let every racer for a key "win".
 */
export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;
  private readonly filter: Filter;
  private readonly subscriptions = new Set<Subscription>();

  /** `connection`: a connection string, or a client (tests hand in a stand-in at the client's method boundary). */
  constructor(connection: string | KurrentDBClient, options: KurrentDbOptions) {
    if (options.streamPrefixes.length === 0) throw new Error('KurrentDbEventStore needs the prefixes of the streams it reads back');
    this.client = typeof connection === 'string' ? KurrentDBClient.connectionString(connection) : connection;
    this.filter = streamNameFilter({ prefixes: [...options.streamPrefixes] });
  }

  async append(streamId: string, events: CloudEvent[], expected: ExpectedRevision, options: AppendOptions = {}): Promise<AppendResult> {
    return (await this.appendMulti([{ streamId, events, expected, ...options }]))[0];
  }

  /**
   * The ledger records chain from each stream's last event's metadata, and each part is appended at
   * that event's revision, so the links hold even when the caller appends at `any`. One part without
   * dedup keys is a plain append; anything else is one multi-stream append, all or nothing.
   */
  async appendMulti(appends: StreamAppend[]): Promise<AppendResult[]> {
    const refused = malformedAppend(appends);
    if (refused) throw refused;
    const keys = appends.flatMap((append) => [...new Set(append.dedupKeys ?? [])]);
    for (let attempt = 0; ; attempt++) {
      const parts = await Promise.all(appends.map((append) => this.pinnedPart(append)));
      try {
        return parts.length === 1 && parts[0].keys.length === 0 ? [await this.appendOnly(parts[0])] : await this.appendReserving(parts);
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        const taken = keys.find((key) => dedupStreamId(key) === error.streamName);
        if (taken !== undefined) throw new DuplicateEventError(taken, await this.owner(taken));
        // A stream the append did not name: no part to answer for, so the server's own error stands.
        const refused = parts.find((part) => part.streamId === error.streamName);
        if (!refused) throw error;
        if (refused.state !== refused.expected && attempt < LEDGER_RETRIES) continue;
        throw new WrongExpectedRevisionError(refused.streamId, refused.expected, typeof error.actualState === 'bigint' ? error.actualState : 'no_stream');
      }
    }
  }

  /** A part with its records chained from its stream's last event, and the state that pins the append right after that event. */
  private async pinnedPart({ streamId, events, expected, dedupKeys }: StreamAppend): Promise<PinnedPart> {
    const last = await this.lastEvent(streamId);
    const ledger = chainLedger(headsAfter(last?.ledger), events);
    const records = events.map((event, i) =>
      jsonEvent({
        id: eventUuid(event, streamId),
        type: event.type,
        data: event as unknown as Record<string, unknown>,
        metadata: { [LEDGER_METADATA]: JSON.stringify(ledger[i]) },
      }),
    );
    return { streamId, expected, state: pinned(expected, last?.revision), records, keys: [...new Set(dedupKeys ?? [])] };
  }

  /** The stream's last event: its revision and ledger record (one read, however long the stream). */
  private async lastEvent(streamId: string): Promise<{ revision: bigint; ledger?: LedgerRecord } | undefined> {
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event) return { revision: resolved.event.revision, ledger: ledgerOf(resolved.event.metadata) };
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
    return undefined;
  }

  async ledgerHeads(streamId: string): Promise<ChainHeads> {
    return headsAfter((await this.lastEvent(streamId))?.ledger);
  }

  private async appendOnly({ streamId, records, state }: PinnedPart): Promise<AppendResult> {
    const result = await this.client.appendToStream(streamId, records, { streamState: streamState(state) });
    if (!result.position) throw new Error('KurrentDB did not return the append position (server older than 22.6?)');
    return { nextExpectedRevision: result.nextExpectedRevision, position: packPosition(result.position) };
  }

  /** Reservations first, so a taken key is reported as such even when a revision is stale too (as the SQLite store does). */
  private async appendReserving(parts: PinnedPart[]): Promise<AppendResult[]> {
    const requests: AppendStreamRequest[] = [
      ...parts.flatMap(({ streamId, records, keys }) => {
        const reservation: Reservation = { streamId, eventUuid: records[0].id };
        return keys.map((key): AppendStreamRequest => ({
          streamName: dedupStreamId(key),
          expectedState: NO_STREAM,
          events: [jsonEvent({ id: randomUUID(), type: RESERVATION_TYPE, data: { ...reservation } })],
        }));
      }),
      ...parts.map(({ streamId, records, state }): AppendStreamRequest => ({ streamName: streamId, expectedState: streamState(state), events: records })),
    ];
    const result = await this.client.multiStreamAppend(requests);
    return Promise.all(
      parts.map(async ({ streamId }) => {
        const revision = result.responses.find((response) => response.streamName === streamId)?.revision;
        if (revision === undefined) throw new Error(`KurrentDB's multi-stream append did not report stream ${streamId}`);
        // The answer carries the transaction's commit position only; the event's own {commit, prepare} is read back.
        for await (const resolved of this.client.readStream(streamId, { fromRevision: revision, maxCount: 1 })) {
          if (resolved.event?.position) return { nextExpectedRevision: revision, position: packPosition(resolved.event.position) };
        }
        throw new Error(`KurrentDB did not return the position of ${streamId}@${revision}`);
      }),
    );
  }

  /** The event that holds a key whose reservation the server refused to repeat. */
  private async owner(key: string): Promise<RecordedEvent> {
    const existing = await this.findByDedupKey(key);
    if (!existing) throw new Error(`Dedup key ${key} is reserved but its event is missing (a reservation written before appends were atomic)`);
    return existing;
  }

  async findByDedupKey(key: string): Promise<RecordedEvent | undefined> {
    const [first] = await this.readRaw(dedupStreamId(key));
    if (!first) return undefined;
    const { streamId, eventUuid: uuid } = first.data as unknown as Reservation;
    return (await this.readStream(streamId)).find((recorded) => eventUuid(recorded.event, streamId) === uuid);
  }

  private async readRaw(streamId: string, fromRevision = 0n) {
    const out: { data: unknown; metadata?: unknown; revision: bigint; position?: Position; created: Date; streamId: string }[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { fromRevision: fromRevision === 0n ? START : fromRevision })) {
        if (resolved.event) out.push(resolved.event as (typeof out)[number]);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  async readStream(streamId: string, fromRevision = 0n): Promise<RecordedEvent[]> {
    return (await this.readRaw(streamId, fromRevision)).map((event) => {
      const recorded: RecordedEvent = {
        streamId,
        revision: event.revision,
        position: event.position ? packPosition(event.position) : 0n,
        recordedAt: event.created.toISOString(),
        event: event.data as CloudEvent,
      };
      const ledger = ledgerOf(event.metadata);
      if (ledger) recorded.ledger = ledger;
      return recorded;
    });
  }

  async readAll(after: bigint, limit: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const read = this.client.readAll({
      fromPosition: after === 0n ? START : unpackPosition(after),
      maxCount: limit + 1,
      filter: this.filter,
    });
    for await (const resolved of read) {
      const recorded = toRecorded(resolved);
      // fromPosition is inclusive in KurrentDB; the port's `after` is exclusive.
      if (recorded && recorded.position > after) out.push(recorded);
      if (out.length === limit) break;
    }
    return out;
  }

  async headPosition(): Promise<bigint> {
    for await (const resolved of this.client.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1, filter: this.filter })) {
      return toRecorded(resolved)?.position ?? 0n;
    }
    return 0n;
  }

  async checkWritable(): Promise<void> {
    // A fresh stream name each time: the stream cannot exist, so the append goes through the leader's write path and is refused.
    const probe = `${WRITE_PROBE_STREAM_PREFIX}${randomUUID()}`;
    try {
      await this.client.appendToStream(probe, jsonEvent({ type: 'im.diagnostics.write_probe', data: {} }), { streamState: STREAM_EXISTS });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return;
      throw error;
    }
  }

  /**
   * Catch-up subscription to $all, filtered on the server to the configured
   * streams. The handler gets what the subscription has buffered, in one call.
   * A handler failure, a failed call or a call the server ended resubscribes
   * from the last event handled after a growing pause, so delivery stays
   * at-least-once and in order; stop() (and close()) end it for good.
   */
  subscribeToAll(after: bigint, handler: LogHandler, onError?: (error: unknown) => void): Subscription {
    let position = after;
    const stopping = new AbortController();
    let current: AllStreamSubscription | undefined;
    const running = (async () => {
      let pause: number = RESUBSCRIBE_DELAY_MS.first;
      while (!stopping.signal.aborted) {
        current = this.client.subscribeToAll(
          { fromPosition: position === 0n ? START : unpackPosition(position), filter: this.filter },
          { highWaterMark: SUBSCRIPTION_BATCH },
        );
        try {
          for await (const buffered of bufferedBatches<AllStreamResolvedEvent>(current, SUBSCRIPTION_BATCH)) {
            const batch = buffered.map(toRecorded).filter((recorded): recorded is RecordedEvent => recorded !== undefined && recorded.position > position);
            if (batch.length === 0) continue;
            await handler(batch);
            position = batch[batch.length - 1].position;
            pause = RESUBSCRIBE_DELAY_MS.first;
          }
        } catch (error) {
          if (!stopping.signal.aborted) onError?.(error);
        } finally {
          await current.unsubscribe().catch(() => undefined);
        }
        await sleep(pause, undefined, { signal: stopping.signal }).catch(() => undefined);
        pause = Math.min(pause * 2, RESUBSCRIBE_DELAY_MS.max);
      }
    })();
    const subscription: Subscription = {
      stop: async () => {
        stopping.abort();
        // Cancelling the call need not end the stream: destroying it ends the loop's read.
        await current?.unsubscribe().catch(() => undefined);
        current?.destroy();
        await running;
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }
}

/** Everything the stream has buffered, up to `max`, as one array per wait: a burst reaches the handler in one call. */
async function* bufferedBatches<T>(stream: Readable, max: number): AsyncGenerator<T[]> {
  for await (const first of stream) {
    const batch: T[] = [first as T];
    for (let next: T | null; batch.length < max && (next = stream.read() as T | null) !== null; ) batch.push(next);
    yield batch;
  }
}

function toRecorded(resolved: AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || !event.isJson || event.streamId.startsWith(DEDUP_STREAM_PREFIX)) return undefined;
  return {
    streamId: event.streamId,
    revision: event.revision,
    position: packPosition(event.position),
    recordedAt: event.created.toISOString(),
    event: event.data as unknown as CloudEvent,
  };
}
