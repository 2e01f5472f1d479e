import { Inject, Injectable } from '@nestjs/common';
import type { CloudEvent } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '@im/event-store';
import { ConflictError, RouteChangedError, type StreamEvent } from '@im/incidents';
import { CLOCK, type Clock } from './clock';
import { type Folded, FoldedStreams } from './folded-streams';
import { ID_GENERATOR, type IdGenerator } from './id-generator';
import { READ_YOUR_WRITES, type ReadYourWrites } from './read-your-writes';
import { RETRY_POLICY, type RetryPolicy } from './retry-policy';
import { serviceEvent } from './service-event';
import type { WriteModel } from './write-models';

export interface CommandOptions<S, E> {
  /** The CloudEvent a decided event is stored as. */
  envelope(event: E): CloudEvent;
  /** The state the command may be decided on (an incident withheld from the caller: none). */
  seen?(state: S): S;
  /** The append fails with DuplicateEventError if any of these was recorded before. */
  dedupKeys?: string[];
}

export interface ExecuteOptions<S, E> extends CommandOptions<S, E> {
  /** false: answer once stored, without waiting for the read models (a writer in the background). */
  wait?: boolean;
}

/** A command on one stream as one attempt of a write to several streams takes it. */
export interface StreamCommand<C, S, E> extends CommandOptions<S, E> {
  model: WriteModel<C, S, E>;
  key: string;
  command: C;
  /** The state the command is decided on, read before the attempt: appended at its revision. None: the stream must not exist yet. */
  base?: Folded<S>;
}

export interface Executed<S, E> {
  /** The stream's key: the one given, or the one drawn. */
  key: string;
  /** State after the write, as the ledger recorded it. */
  state: S;
  /** What the decider decided; empty for a "no change" answer. */
  events: E[];
  /** The same events as stored. */
  appended: CloudEvent[];
  /** Log position the answer rests on: what a read-your-writes wait waits for. */
  position: bigint;
}

/** A freshly drawn id names a stream that already has events: draw another. */
export class StreamTakenError extends ConflictError {}

/** What a later attempt may cure: a stale revision, a taken id, a route that changed. */
const retryable = (error: unknown) => error instanceof WrongExpectedRevisionError || error instanceof StreamTakenError || error instanceof RouteChangedError;

type Answered<S> = Omit<Executed<S, unknown>, 'key' | 'events'>;

interface PendingWrite<S> {
  decide: (state: S) => CloudEvent[];
  dedupKeys: string[];
  newStream: boolean;
  resolve: (answered: Answered<S>) => void;
  reject: (error: unknown) => void;
}

/** A model's cache of folded streams, and the writes waiting per stream (an entry exists while its writes are being drained). */
interface ModelStreams<S> {
  streams: FoldedStreams<S>;
  queues: Map<string, PendingWrite<S>[]>;
}

/**
 * The one write path of every stream: read → decide (a domain Decider) →
 * append at the exact revision decided on, in one retry loop (`run`): a stale
 * revision, a taken id or a changed route pauses (the retry policy) and
 * decides again on fresh state; after the policy's attempts, a ConflictError.
 * `execute` then waits until the read models show the write.
 *
 * Writes to one stream that arrive while an append to it is in flight wait
 * and then go together: each is decided in turn on the state the earlier ones
 * leave, and all are appended in one call at the revision they were decided
 * on. So a decision always holds at the revision it is stored at, and a busy
 * stream costs one append per round instead of writers retrying each other.
 * A write to several streams at once (`together`) is one atomic appendMulti.
 * Queues are per model as well as per stream: were two models to write one
 * stream, each write is still decided on its own model's fold, and the two
 * meet as a stale revision in the retry loop.
 *
 * State comes from a per-stream cache of the folded state (FoldedStreams), so
 * what a write costs does not grow with the stream's length.
 */
@Injectable()
export class CommandHandler {
  private readonly models = new Map<WriteModel<unknown, unknown, unknown>, ModelStreams<unknown>>();

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RETRY_POLICY) private readonly retry: RetryPolicy,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(READ_YOUR_WRITES) private readonly views: ReadYourWrites,
  ) {}

  /** The envelope of an event the service writes itself on `actor`'s behalf (serviceEvent): stamped now, under a fresh id. */
  serviceEnvelope(actor: string): (event: StreamEvent) => CloudEvent {
    return (event) => serviceEvent(this.ids, this.clock, actor, { type: event.type, data: event.data ?? {} });
  }

  /**
   * Runs `command` on the stream of `key` and answers once the read models
   * show it (also a "no change", which may rest on another writer's event).
   * A `key` given as a function is drawn for each attempt, and its stream must
   * not exist yet. A `command` given as a function (of the key) is built when
   * it is decided, on each attempt (so a time it takes is the decision's).
   */
  execute<C, S, E>(model: WriteModel<C, S, E>, key: string | (() => string), command: C | ((key: string) => C), options: ExecuteOptions<S, E>): Promise<Executed<S, E>> {
    return this.run(
      model.decider.stream.subject,
      () => {
        const drawn = typeof key === 'function' ? key() : key;
        const build = typeof command === 'function' ? () => (command as (key: string) => C)(drawn) : () => command;
        return this.enqueue(model, drawn, build, { ...options, newStream: typeof key === 'function' });
      },
      options,
    );
  }

  /**
   * The one retry loop: runs `attempt` (`once`, `together`, reads before
   * them) until it stands or fails for good, then waits for the read models
   * to reach the position it answers (none: nothing to wait for).
   */
  async run<T extends { position?: bigint }>(subject: string, attempt: () => Promise<T>, { wait = true }: { wait?: boolean } = {}): Promise<T> {
    let answer: T;
    try {
      answer = await this.retry.run(attempt, retryable);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw new ConflictError(`The ${subject} changed while the request was decided; retry it`);
      throw error;
    }
    if (wait && answer.position !== undefined) await this.views.waitFor(answer.position);
    return answer;
  }

  /**
   * Several writes at once, each run without its wait (`run` with `wait:
   * false`): answers once all have settled, with the first failure in their
   * order, or else after one wait for the highest position they answer.
   */
  async all<T extends { position?: bigint }>(writes: Promise<T>[]): Promise<T[]> {
    const settled = await Promise.allSettled(writes);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const answers = settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
    const positions = answers.flatMap(({ position }) => (position === undefined ? [] : [position]));
    if (positions.length > 0) await this.views.waitFor(positions.reduce((a, b) => (a > b ? a : b)));
    return answers;
  }

  /** One attempt of a command on one stream, decided on its state as it stands (with the writes queued behind an append in flight). */
  once<C, S, E>(model: WriteModel<C, S, E>, key: string, command: C, options: CommandOptions<S, E>): Promise<Executed<S, E>> {
    return this.enqueue(model, key, () => command, options);
  }

  /** Queues a write of the command `build` answers when it is decided. */
  private enqueue<C, S, E>(model: WriteModel<C, S, E>, key: string, build: () => C, options: CommandOptions<S, E> & { newStream?: boolean }): Promise<Executed<S, E>> {
    return new Promise<Executed<S, E>>((resolve, reject) => {
      let events: E[] = [];
      const seen = options.seen ?? ((state: S) => state);
      const write: PendingWrite<S> = {
        decide: (state) => (events = model.decider.decide(build(), seen(state))).map((event) => options.envelope(event)),
        dedupKeys: options.dedupKeys ?? [],
        newStream: options.newStream ?? false,
        resolve: (answered) => resolve({ key, events, ...answered }),
        reject,
      };
      const streamId = model.decider.stream.streamId(key);
      const { streams, queues } = this.of(model);
      const queue = queues.get(streamId);
      if (queue) return queue.push(write);
      queues.set(streamId, [write]);
      void this.drain(streams, queues, streamId);
    });
  }

  /**
   * One attempt of commands on several streams as one write: each decided on
   * its `base`, all appended by one atomic appendMulti at those revisions (a
   * stream without a base must not exist yet). Answers in the commands' order.
   */
  async together(commands: StreamCommand<unknown, unknown, unknown>[]): Promise<Executed<unknown, unknown>[]> {
    const empty: Folded<unknown> = { state: undefined, revision: -1n, position: 0n };
    const decided = commands.map(({ model, key, command, envelope, seen, dedupKeys, base }) => {
      const folded = base ?? { ...empty, state: model.decider.initialState };
      const events = model.decider.decide(command, seen ? seen(folded.state) : folded.state);
      return { model, key, folded, events, appended: events.map((event) => envelope(event)), streamId: model.decider.stream.streamId(key), dedupKeys };
    });
    const writing = decided.filter(({ appended }) => appended.length > 0);
    const results = writing.length === 0 ? [] : await this.eventStore.appendMulti(
      writing.map(({ streamId, appended, folded, dedupKeys }) => ({ streamId, events: appended, expected: folded.revision < 0n ? 'no_stream' : folded.revision, dedupKeys })),
    );
    return Promise.all(
      decided.map(async ({ model, key, folded, events, appended, streamId }) => {
        const result = results[writing.findIndex((written) => written.streamId === streamId)];
        if (!result) return { key, state: folded.state, events, appended, position: folded.position };
        const streams = this.of(model).streams;
        const recorded = result.recorded ?? (await this.eventStore.readStream(streamId, folded.revision + 1n));
        const after = streams.remember(streamId, streams.advance(folded, recorded));
        return { key, state: after.state, events, appended, position: after.position };
      }),
    );
  }

  /** The stream's current state, read without folding what was folded before. */
  async state<C, S, E>(model: WriteModel<C, S, E>, key: string): Promise<S> {
    return (await this.current(model, key)).state;
  }

  /** The stream's current state with its revision and position: the `base` of a command in `together`. */
  current<C, S, E>(model: WriteModel<C, S, E>, key: string): Promise<Folded<S>> {
    return this.of(model).streams.current(model.decider.stream.streamId(key));
  }

  private of<C, S, E>(model: WriteModel<C, S, E>): ModelStreams<S> {
    let streams = this.models.get(model as WriteModel<unknown, unknown, unknown>) as ModelStreams<S> | undefined;
    if (!streams) {
      const { decider, read } = model;
      streams = { streams: new FoldedStreams<S>(this.eventStore, (state, recorded) => decider.evolve(state, read(recorded)), decider.initialState), queues: new Map() };
      this.models.set(model as WriteModel<unknown, unknown, unknown>, streams as ModelStreams<unknown>);
    }
    return streams;
  }

  private async drain<S>(streams: FoldedStreams<S>, queues: Map<string, PendingWrite<S>[]>, streamId: string): Promise<void> {
    const queue = queues.get(streamId) as PendingWrite<S>[];
    while (queue.length > 0) {
      const round = queue.splice(0);
      try {
        queue.unshift(...(await this.writeRound(streams, streamId, round)));
      } catch (error) {
        round.forEach((write) => write.reject(error));
      }
    }
    queues.delete(streamId);
  }

  /** Decides and appends the writes of one round; answers those to decide again in the next (they met no conflict). */
  private async writeRound<S>(streams: FoldedStreams<S>, streamId: string, round: PendingWrite<S>[]): Promise<PendingWrite<S>[]> {
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
        const events = write.decide(state);
        for (const event of events) state = streams.fold(state, { streamId, revision: ++revision, position: base.position, recordedAt, event });
        write.dedupKeys.forEach((key) => keys.add(key));
        decided.push({ write, events });
      } catch (error) {
        write.reject(error);
      }
    }
    const events = decided.flatMap((d) => d.events);
    if (events.length === 0) {
      decided.forEach(({ write }) => write.resolve({ state: base.state, appended: [], position: base.position }));
      return later;
    }
    let appended;
    try {
      appended = await this.eventStore.append(streamId, events, base.revision < 0n ? 'no_stream' : base.revision, { dedupKeys: [...keys] });
    } catch (error) {
      return [...this.undecided(decided.map((d) => d.write), error), ...later];
    }
    // What was recorded, so each writer gets the state with the ledger's times (read back if the store does not answer it).
    const recorded: RecordedEvent[] = appended.recorded ?? (await this.eventStore.readStream(streamId, base.revision + 1n));
    let folded: Folded<S> = base;
    let next = 0;
    for (const { write, events: own } of decided) {
      folded = streams.advance(folded, recorded.slice(next, (next += own.length)));
      write.resolve({ state: folded.state, appended: own, position: folded.position });
    }
    streams.remember(streamId, streams.advance(folded, recorded.slice(next)));
    return later;
  }

  /**
   * After a failed append: the writer of a taken key is a duplicate, and the
   * others, who met no conflict, are decided again next round; any other error
   * (a stale revision: the retry loop decides again) answers them all.
   */
  private undecided<S>(writes: PendingWrite<S>[], error: unknown): PendingWrite<S>[] {
    const owner = error instanceof DuplicateEventError ? writes.find((write) => write.dedupKeys.includes(error.key)) : undefined;
    if (!owner) {
      writes.forEach((write) => write.reject(error));
      return [];
    }
    owner.reject(error);
    return writes.filter((write) => write !== owner);
  }
}
