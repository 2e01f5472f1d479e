import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { type CloudEvent, toLedgerEvent } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '@im/event-store';
import { evolve, type IncidentState, initialState } from '@im/incidents';
import { incidentProjection, incidentStreamId, PROJECTION_PROGRESS, type ProjectionProgress } from '@im/read-models';
import { type Folded, FoldedStreams } from './folded-streams';

const MAX_ATTEMPTS = 20;

export interface WriteOutcome {
  /** State after the write, as the ledger recorded it. */
  state: IncidentState;
  /** What was appended; empty for a "no change" answer. */
  appended: CloudEvent[];
}

export interface WriteOptions {
  /** Make the append fail with DuplicateEventError if any of these was recorded before. */
  dedupKeys?: string[];
}

/** Folds CloudEvents as their senders wrote them (for a decision; stored state comes from the ledger's record). */
export const foldIncident = (incidentId: string, events: CloudEvent[], from: IncidentState = initialState) =>
  events.reduce<IncidentState>((state, event) => evolve(state, toLedgerEvent(event, incidentId)), from);

type Decide = (state: IncidentState) => CloudEvent[];

interface PendingWrite {
  decide: Decide;
  dedupKeys: string[];
  attempts: number;
  resolve: (outcome: WriteOutcome & { position: bigint }) => void;
  reject: (error: unknown) => void;
}

/**
 * The one write path of an incident stream: read → decide → append at the
 * exact revision decided on; on a conflict decide again on fresh state.
 * Answers once the read models show the result, so the caller can read its
 * own write.
 *
 * Writes to one stream that arrive while an append to it is in flight wait
 * and then go together: each is decided in turn on the state the earlier ones
 * leave, and all are appended in one call at the revision they were decided
 * on. So a decision always holds at the revision it is stored at, and a busy
 * incident costs one append per round instead of writers retrying each other.
 */
@Injectable()
export class IncidentStreamWriter {
  private readonly streams: FoldedStreams<IncidentState>;
  /** Writes waiting per incident; an entry exists while its writes are being drained. */
  private readonly waiting = new Map<string, PendingWrite[]>();

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTION_PROGRESS) private readonly projections: ProjectionProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.streams = new FoldedStreams<IncidentState>(eventStore, incidentProjection.evolve, initialState);
  }

  /** `decide` sees the current state and returns the CloudEvents to append, or throws a DomainError. */
  async write(incidentId: string, decide: Decide, options: WriteOptions = {}): Promise<WriteOutcome> {
    const { state, appended, position } = await new Promise<WriteOutcome & { position: bigint }>((resolve, reject) => {
      const write: PendingWrite = { decide, dedupKeys: options.dedupKeys ?? [], attempts: 0, resolve, reject };
      const queue = this.waiting.get(incidentId);
      if (queue) return queue.push(write);
      this.waiting.set(incidentId, [write]);
      void this.drain(incidentId);
    });
    // "No change" may be due to an event someone else appended: answer once the views show it too.
    await this.waitForViews(position);
    return { state, appended };
  }

  /** The incident's current state, read without folding what was folded before. */
  async state(incidentId: string): Promise<IncidentState> {
    return (await this.streams.current(incidentStreamId(incidentId))).state;
  }

  waitForViews(position: bigint): Promise<void> {
    return this.projections.waitFor(position, this.config.projectionWaitMs);
  }

  private async drain(incidentId: string): Promise<void> {
    const queue = this.waiting.get(incidentId) as PendingWrite[];
    while (queue.length > 0) {
      const round = queue.splice(0);
      try {
        queue.unshift(...(await this.writeRound(incidentId, round)));
      } catch (error) {
        round.forEach((write) => write.reject(error));
      }
    }
    this.waiting.delete(incidentId);
  }

  /** Decides and appends the writes of one round; answers those to try again in the next. */
  private async writeRound(incidentId: string, round: PendingWrite[]): Promise<PendingWrite[]> {
    const streamId = incidentStreamId(incidentId);
    const base = await this.streams.current(streamId);
    const decided: { write: PendingWrite; events: CloudEvent[] }[] = [];
    const later: PendingWrite[] = [];
    const keys = new Set<string>();
    let state = base.state;
    for (const write of round) {
      // One append records a key once: a second writer of the same key is answered next round, as a duplicate.
      if (write.dedupKeys.some((key) => keys.has(key))) {
        later.push(write);
        continue;
      }
      try {
        const events = write.decide(state);
        state = foldIncident(incidentId, events, state);
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
    try {
      await this.eventStore.append(streamId, events, base.revision < 0n ? 'no_stream' : base.revision, { dedupKeys: [...keys] });
    } catch (error) {
      return [...this.retryable(decided.map((d) => d.write), error), ...later];
    }
    // Read back what was recorded, so each writer gets the state with the ledger's times.
    const recorded = await this.eventStore.readStream(streamId, base.revision + 1n);
    let folded: Folded<IncidentState> = base;
    let next = 0;
    for (const { write, events: own } of decided) {
      folded = this.streams.advance(folded, recorded.slice(next, (next += own.length)));
      write.resolve({ state: folded.state, appended: own, position: folded.position });
    }
    this.streams.remember(streamId, this.streams.advance(folded, recorded.slice(next)));
    return later;
  }

  /** After a failed append: which writes to decide again; the others are answered with the error. */
  private retryable(writes: PendingWrite[], error: unknown): PendingWrite[] {
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
      if (++write.attempts < MAX_ATTEMPTS) return true;
      write.reject(error);
      return false;
    });
  }
}
