import { Inject, Injectable } from '@nestjs/common';
import type { CloudEvent } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '@im/event-store';
import { ConflictError } from '@im/incidents';
import { CLOCK, type Clock } from './clock';
import { type Folded, FoldedStreams } from './folded-streams';
import { RETRY_POLICY, type RetryPolicy } from './retry-policy';

/** What the writes to one kind of stream are decided on. */
export interface StreamModel<S> {
  /** What the stream holds, as a client would name it ("The <subject> changed while …"). */
  readonly subject: string;
  readonly initialState: S;
  /** Folds a recorded event in; it also folds a decided event as it will be recorded, for the next decision of the same round. */
  evolve(state: S, recorded: RecordedEvent): S;
}

/** Sees the stream's current state and answers the events to append (none: no change), or throws to refuse. */
export type Decide<S> = (state: S) => CloudEvent[] | Promise<CloudEvent[]>;

export interface HandleOptions {
  /** The append fails with DuplicateEventError if any of these was recorded before. */
  dedupKeys?: string[];
  /** The stream is named by a freshly drawn id, so it must have no events yet; if it has, StreamTakenError. */
  newStream?: boolean;
}

export interface Handled<S> {
  /** State after the write, as the ledger recorded it. */
  state: S;
  /** What was appended; empty for a "no change" answer. */
  appended: CloudEvent[];
  /** Log position the answer rests on: what a read-your-writes wait waits for. */
  position: bigint;
}

/** A freshly drawn id names a stream that already has events: draw another. */
export class StreamTakenError extends ConflictError {}

interface PendingWrite<S> {
  decide: Decide<S>;
  dedupKeys: string[];
  newStream: boolean;
  /** Appends of this write that failed on a conflict. */
  conflicts: number;
  resolve: (handled: Handled<S>) => void;
  reject: (error: unknown) => void;
}

interface StreamQueue<S> {
  model: StreamModel<S>;
  writes: PendingWrite<S>[];
}

/**
 * The one write path of every stream: read → decide → append at the exact
 * revision decided on; on a conflict, pause (the retry policy) and decide
 * again on fresh state; after the policy's attempts, a ConflictError.
 *
 * Writes to one stream that arrive while an append to it is in flight wait
 * and then go together: each is decided in turn on the state the earlier ones
 * leave, and all are appended in one call at the revision they were decided
 * on. So a decision always holds at the revision it is stored at, and a busy
 * stream costs one append per round instead of writers retrying each other.
 *
 * State comes from a per-stream cache of the folded state (FoldedStreams), so
 * what a write costs does not grow with the stream's length.
 */
@Injectable()
export class CommandHandler {
  private readonly folded = new Map<StreamModel<unknown>, FoldedStreams<unknown>>();
  /** Writes waiting per stream; an entry exists while its writes are being drained. */
  private readonly queues = new Map<string, StreamQueue<unknown>>();

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RETRY_POLICY) private readonly retry: RetryPolicy,
  ) {}

  /** Decides on the stream's current state and appends what `decide` answers. */
  handle<S>(model: StreamModel<S>, streamId: string, decide: Decide<S>, options: HandleOptions = {}): Promise<Handled<S>> {
    return new Promise<Handled<S>>((resolve, reject) => {
      const write: PendingWrite<S> = { decide, dedupKeys: options.dedupKeys ?? [], newStream: options.newStream ?? false, conflicts: 0, resolve, reject };
      const queue = this.queues.get(streamId) as StreamQueue<S> | undefined;
      if (queue) return queue.writes.push(write);
      this.queues.set(streamId, { model, writes: [write] } as StreamQueue<unknown>);
      void this.drain(streamId);
    });
  }

  /**
   * Opens a stream named by a freshly drawn id: `draw` gives the id,
   * `streamIdOf` its stream; while the drawn stream is taken, draws again
   * (the retry policy's attempts).
   */
  handleNew<S>(
    model: StreamModel<S>,
    draw: () => string,
    streamIdOf: (id: string) => string,
    decide: (id: string, state: S) => CloudEvent[],
    options: Omit<HandleOptions, 'newStream'> = {},
  ): Promise<Handled<S> & { id: string }> {
    return this.retry.run(async () => {
      const id = draw();
      const handled = await this.handle(model, streamIdOf(id), (state) => decide(id, state), { ...options, newStream: true });
      return { ...handled, id };
    }, (error) => error instanceof StreamTakenError);
  }

  /** The stream's current state, read without folding what was folded before. */
  async state<S>(model: StreamModel<S>, streamId: string): Promise<S> {
    return (await this.streamsOf(model).current(streamId)).state;
  }

  private streamsOf<S>(model: StreamModel<S>): FoldedStreams<S> {
    let streams = this.folded.get(model) as FoldedStreams<S> | undefined;
    if (!streams) {
      streams = new FoldedStreams<S>(this.eventStore, (state, recorded) => model.evolve(state, recorded), model.initialState);
      this.folded.set(model, streams as FoldedStreams<unknown>);
    }
    return streams;
  }

  private async drain<S>(streamId: string): Promise<void> {
    const queue = this.queues.get(streamId) as StreamQueue<S>;
    while (queue.writes.length > 0) {
      const round = queue.writes.splice(0);
      try {
        const { again, conflicts } = await this.writeRound(queue.model, streamId, round);
        // Writes arriving during the pause join the next round.
        if (conflicts > 0) await this.retry.pause(conflicts);
        queue.writes.unshift(...again);
      } catch (error) {
        round.forEach((write) => write.reject(error));
      }
    }
    this.queues.delete(streamId);
  }

  /**
   * Decides and appends the writes of one round; answers those to try again
   * in the next, and after how many conflicts (0: no pause before it).
   */
  private async writeRound<S>(model: StreamModel<S>, streamId: string, round: PendingWrite<S>[]): Promise<{ again: PendingWrite<S>[]; conflicts: number }> {
    const streams = this.streamsOf(model);
    const base = await streams.current(streamId);
    const decided: { write: PendingWrite<S>; events: CloudEvent[] }[] = [];
    const later: PendingWrite<S>[] = [];
    const keys = new Set<string>();
    const recordedAt = this.clock.now().toISOString();
    let { state, revision } = base;
    for (const write of round) {
      // One append records a key once: a second writer of the same key is answered next round, as a duplicate.
      if (write.dedupKeys.some((key) => keys.has(key))) {
        later.push(write);
        continue;
      }
      try {
        if (write.newStream && revision >= 0n) throw new StreamTakenError(`Stream ${streamId} already exists`);
        const events = await write.decide(state);
        for (const event of events) state = model.evolve(state, { streamId, revision: ++revision, position: base.position, recordedAt, event });
        write.dedupKeys.forEach((key) => keys.add(key));
        decided.push({ write, events });
      } catch (error) {
        write.reject(error);
      }
    }
    const events = decided.flatMap((d) => d.events);
    if (events.length === 0) {
      decided.forEach(({ write }) => write.resolve({ state: base.state, appended: [], position: base.position }));
      return { again: later, conflicts: 0 };
    }
    let appended;
    try {
      appended = await this.eventStore.append(streamId, events, base.revision < 0n ? 'no_stream' : base.revision, { dedupKeys: [...keys] });
    } catch (error) {
      const again = this.retryable(model, decided.map((d) => d.write), error);
      const conflicts = error instanceof WrongExpectedRevisionError ? Math.max(0, ...again.map((write) => write.conflicts)) : 0;
      return { again: [...again, ...later], conflicts };
    }
    // What was recorded, so each writer gets the state with the ledger's times (read back if the store does not answer it).
    const recorded = appended.recorded ?? (await this.eventStore.readStream(streamId, base.revision + 1n));
    let folded: Folded<S> = base;
    let next = 0;
    for (const { write, events: own } of decided) {
      folded = streams.advance(folded, recorded.slice(next, (next += own.length)));
      write.resolve({ state: folded.state, appended: own, position: folded.position });
    }
    streams.remember(streamId, streams.advance(folded, recorded.slice(next)));
    return { again: later, conflicts: 0 };
  }

  /** After a failed append: which writes to decide again; the others are answered with an error. */
  private retryable<S>(model: StreamModel<S>, writes: PendingWrite<S>[], error: unknown): PendingWrite<S>[] {
    if (error instanceof DuplicateEventError) {
      // Only the writer of the taken key is a duplicate; the others did not conflict with anything.
      const owner = writes.find((write) => write.dedupKeys.includes(error.key));
      if (owner) {
        owner.reject(error);
        return writes.filter((write) => write !== owner);
      }
    }
    if (!(error instanceof WrongExpectedRevisionError)) {
      writes.forEach((write) => write.reject(error));
      return [];
    }
    return writes.filter((write) => {
      if (this.retry.allowsAfter(++write.conflicts)) return true;
      write.reject(new ConflictError(`The ${model.subject} changed while the request was decided; retry it`));
      return false;
    });
  }
}
