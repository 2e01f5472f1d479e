import {
  ANY,
  type AllStreamResolvedEvent,
  type AppendStreamState,
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
import { createHash } from 'node:crypto';
import type { CloudEvent } from '@im/cloudevents';
import {
  type AppendOptions,
  type AppendResult,
  DuplicateEventError,
  type EventStore,
  type ExpectedRevision,
  type LogHandler,
  type RecordedEvent,
  type Subscription,
  WrongExpectedRevisionError,
} from '../../event-store.port';

/**
 * A log position as one bigint: commit position in the high 64 bits, prepare
 * in the low 64. It orders exactly as $all does and turns back into the
 * client's {commit, prepare} without assuming the two are equal.
 */
export const packPosition = ({ commit, prepare }: Position): bigint => (commit << 64n) | prepare;
export const unpackPosition = (packed: bigint): Position => ({ commit: packed >> 64n, prepare: packed & 0xffff_ffff_ffff_ffffn });

/** Streams the service writes: everything else in $all (system streams, other apps) is filtered out on the server. */
const SERVICE_STREAM_PREFIXES = ['incident-', 'user-', 'fingerprint-', 'diagnostics-'];
const DEDUP_STREAM_PREFIX = 'dedup-';
const WRITE_PROBE_STREAM = 'diagnostics-write-probe';
const RESUBSCRIBE_DELAY_MS = 1000;
const RESERVATION_TYPE = 'im.dedup.reservation';

/** The CloudEvent id is not a UUID in general; KurrentDB event ids must be, so one is derived (name-based, v5-style). */
export function eventUuid(event: CloudEvent, streamId: string): string {
  const hash = createHash('sha1').update(`${streamId}\n${event.source}\n${event.id}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const dedupStreamId = (key: string) => `${DEDUP_STREAM_PREFIX}${createHash('sha256').update(key).digest('hex')}`;

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

interface Reservation {
  streamId: string;
  eventUuid: string;
}

/**
 * KurrentDB (EventStoreDB) adapter. Streams map one to one; the CloudEvent is
 * the event's JSON data.
 *
 * Idempotency is guaranteed, not best-effort: each dedup key owns a stream
 * `dedup-<sha256(key)>`. An append first writes a reservation there (expected
 * state: no stream), naming the target stream and event id, then appends the
 * event. A second writer with the same key loses the reservation race and reads
 * who owns the key. If a crash came between the two steps, the reservation
 * points at an event that does not exist: the next writer with that key sees
 * the dangling reservation, re-points it at itself (expected revision of the
 * dedup stream, so only one repairer wins) and appends its event.
 */
export class KurrentDbEventStore implements EventStore {
  private readonly client: KurrentDBClient;

  constructor(connectionString: string) {
    this.client = KurrentDBClient.connectionString(connectionString);
  }

  async append(streamId: string, events: CloudEvent[], expected: ExpectedRevision, options: AppendOptions = {}): Promise<AppendResult> {
    const data = events.map((event) => ({ event, uuid: eventUuid(event, streamId) }));
    for (const key of new Set(options.dedupKeys ?? [])) await this.reserve(key, { streamId, eventUuid: data[0].uuid });
    try {
      const result = await this.client.appendToStream(
        streamId,
        data.map(({ event, uuid }) => jsonEvent({ id: uuid, type: event.type, data: event as unknown as Record<string, unknown> })),
        { streamState: streamState(expected) },
      );
      if (!result.position) throw new Error('KurrentDB did not return the append position (server older than 22.6?)');
      return { nextExpectedRevision: result.nextExpectedRevision, position: packPosition(result.position) };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualState === 'bigint' ? error.actualState : 'no_stream';
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      throw error;
    }
  }

  /** Claims a dedup key for `target`, or throws DuplicateEventError naming the event that owns it. */
  private async reserve(key: string, target: Reservation): Promise<void> {
    const stream = dedupStreamId(key);
    const reservation = (at: string) => jsonEvent({ id: eventUuid({ specversion: '1.0', id: key, source: at, type: RESERVATION_TYPE, time: '' }, stream), type: RESERVATION_TYPE, data: { ...target } });
    try {
      await this.client.appendToStream(stream, reservation('first'), { streamState: NO_STREAM });
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
    const current = await this.lastReservation(stream);
    if (current) {
      const existing = await this.findEvent(current.reservation);
      if (existing) throw new DuplicateEventError(key, existing);
    }
    // A dangling reservation (a crash between reservation and append): take it over.
    try {
      await this.client.appendToStream(stream, reservation(`repair-${current?.revision ?? 0n}`), {
        streamState: current ? current.revision : NO_STREAM,
      });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) return this.reserve(key, target);
      throw error;
    }
  }

  private async lastReservation(stream: string): Promise<{ reservation: Reservation; revision: bigint } | undefined> {
    const events = await this.readRaw(stream);
    const last = events[events.length - 1];
    return last && { reservation: last.data as unknown as Reservation, revision: last.revision };
  }

  private async findEvent({ streamId, eventUuid: uuid }: Reservation): Promise<RecordedEvent | undefined> {
    return (await this.readStream(streamId)).find((recorded) => eventUuid(recorded.event, streamId) === uuid);
  }

  async findByDedupKey(key: string): Promise<RecordedEvent | undefined> {
    const current = await this.lastReservation(dedupStreamId(key));
    return current && this.findEvent(current.reservation);
  }

  private async readRaw(streamId: string, fromRevision = 0n) {
    const out: { data: unknown; revision: bigint; position?: Position; created: Date; streamId: string }[] = [];
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
    return (await this.readRaw(streamId, fromRevision)).map((event) => ({
      streamId,
      revision: event.revision,
      position: event.position ? packPosition(event.position) : 0n,
      recordedAt: event.created.toISOString(),
      event: event.data as CloudEvent,
    }));
  }

  async readAll(after: bigint, limit: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const read = this.client.readAll({
      fromPosition: after === 0n ? START : unpackPosition(after),
      maxCount: limit + 1,
      filter: streamNameFilter({ prefixes: SERVICE_STREAM_PREFIXES }),
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
    for await (const resolved of this.client.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1, filter: streamNameFilter({ prefixes: SERVICE_STREAM_PREFIXES }) })) {
      return toRecorded(resolved)?.position ?? 0n;
    }
    return 0n;
  }

  async checkWritable(): Promise<void> {
    // A real write, to a stream that keeps only its newest event, so probes never pile up.
    await this.client.setStreamMetadata(WRITE_PROBE_STREAM, { maxCount: 1 });
    await this.client.appendToStream(
      WRITE_PROBE_STREAM,
      jsonEvent({ type: 'im.diagnostics.write_probe', data: { at: new Date().toISOString() } }),
      { streamState: ANY },
    );
  }

  /**
   * Catch-up subscription to $all, filtered on the server to the service's
   * streams. A handler failure resubscribes from the last event handled, so
   * delivery stays at-least-once and in order.
   */
  subscribeToAll(after: bigint, handler: LogHandler, onError?: (error: unknown) => void): Subscription {
    let position = after;
    let stopped = false;
    let current: ReturnType<KurrentDBClient['subscribeToAll']> | undefined;
    const running = (async () => {
      while (!stopped) {
        current = this.client.subscribeToAll({
          fromPosition: position === 0n ? START : unpackPosition(position),
          filter: streamNameFilter({ prefixes: SERVICE_STREAM_PREFIXES }),
        });
        try {
          for await (const resolved of current) {
            const recorded = toRecorded(resolved);
            if (!recorded || recorded.position <= position) continue;
            await handler([recorded]);
            position = recorded.position;
          }
        } catch (error) {
          if (!stopped) {
            onError?.(error);
            await new Promise((resolve) => setTimeout(resolve, RESUBSCRIBE_DELAY_MS));
          }
        } finally {
          await current.unsubscribe().catch(() => undefined);
        }
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        await current?.unsubscribe().catch(() => undefined);
        await running;
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
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
