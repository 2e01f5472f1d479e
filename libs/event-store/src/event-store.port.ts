import type { CloudEvent } from '@im/cloudevents';
import type { ChainHeads, LedgerRecord } from '@im/ledger-proof';

/** Nest injection token of the EventStore port. */
export const EVENT_STORE = Symbol('EVENT_STORE');

/**
 * What the caller decided on: a revision (the stream's last event), or a
 * stream state. Revisions count from 0, as in KurrentDB.
 */
export type ExpectedRevision = bigint | 'no_stream' | 'stream_exists' | 'any';

export interface RecordedEvent {
  streamId: string;
  /** Position of the event within its stream, from 0. */
  revision: bigint;
  /** Position in the whole log; strictly increasing in commit order. */
  position: bigint;
  /** RFC 3339 UTC time the store committed the event. */
  recordedAt: string;
  event: CloudEvent;
  /** The event's salts and chain links (docs/api.md, "Verifiable ledger"): given by readStream and by append, not by readAll. */
  ledger?: LedgerRecord;
}

export interface AppendResult {
  /** Revision of the last appended event: the expected revision of the next append. */
  nextExpectedRevision: bigint;
  /** Log position of the last appended event. */
  position: bigint;
  /** The appended events as recorded, where the store has them at hand (else the caller reads them back). */
  recorded?: RecordedEvent[];
}

/** Receives the log in order, one batch at a time; the next batch waits for the returned promise. */
export type LogHandler = (events: RecordedEvent[]) => Promise<void>;

export interface Subscription {
  /** Stops delivery; resolves once no handler call is in flight. */
  stop(): Promise<void>;
}

export interface AppendOptions {
  /**
   * Keys that may be recorded only once in the whole store. If any is already
   * taken the append throws DuplicateEventError and writes nothing; otherwise
   * the keys are recorded with the events, atomically.
   */
  dedupKeys?: string[];
}

/** One stream's part of an append to several streams at once. */
export interface StreamAppend extends AppendOptions {
  streamId: string;
  events: CloudEvent[];
  expected: ExpectedRevision;
}

export interface EventStore {
  /**
   * Appends atomically, each event with its ledger record: salts drawn now and the links
   * chained from the stream's last ones (chainLedger). Throws WrongExpectedRevisionError when the stream is
   * not where the caller expected, DuplicateEventError when a dedup key is taken.
   */
  append(streamId: string, events: CloudEvent[], expected: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams (each named once) as one: every part is written, each as `append` writes it
   * and with its own dedup keys, or none is. The first part refused answers for all of them
   * (WrongExpectedRevisionError naming its stream, DuplicateEventError); the results are in the parts' order.
   */
  appendMulti(appends: StreamAppend[]): Promise<AppendResult[]>;
  /** The first event appended with this dedup key, if any. */
  findByDedupKey(key: string): Promise<RecordedEvent | undefined>;
  /** The last link of each of the stream's chains (none for an empty stream), read from its last event alone. */
  ledgerHeads(streamId: string): Promise<ChainHeads>;
  /** The stream's events in order from `fromRevision` (default 0), with their ledger records; empty when there are none. */
  readStream(streamId: string, fromRevision?: bigint): Promise<RecordedEvent[]>;
  /** Up to `limit` events with a position greater than `after` (0n = from the start). */
  readAll(after: bigint, limit: number): Promise<RecordedEvent[]>;
  /** Position of the last event in the log, 0n when empty. */
  headPosition(): Promise<bigint>;
  /** Proves the store would accept a write now, without writing anything. */
  checkWritable(): Promise<void>;
  /** Catches up from `after`, then follows new appends until stopped. */
  subscribeToAll(after: bigint, handler: LogHandler, onError?: (error: unknown) => void): Subscription;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`Stream ${streamId} is at ${String(actual)}, expected ${String(expected)}`);
  }
}

export class DuplicateEventError extends Error {
  constructor(
    readonly key: string,
    /** The event first recorded under the key. */
    readonly existing: RecordedEvent,
  ) {
    super(`An event with dedup key ${key} is already recorded at position ${existing.position}`);
  }
}
