import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { type CloudEvent, toLedgerEvent } from '@im/cloudevents';
import { EVENT_STORE, type EventStore, type ExpectedRevision, WrongExpectedRevisionError } from '@im/event-store';
import { evolve, type IncidentState, initialState } from '@im/incidents';
import { incidentStreamId, PROJECTION_PROGRESS, type ProjectionProgress } from '@im/read-models';

const MAX_ATTEMPTS = 20;
const CACHED_STREAMS = 10_000;

export interface WriteOutcome {
  /** State after the write, as the write side decided it. */
  state: IncidentState;
  /** What was appended; empty for a "no change" answer. */
  appended: CloudEvent[];
}

export interface WriteOptions {
  /** Make the append fail with DuplicateEventError if any of these was recorded before. */
  dedupKeys?: string[];
  /**
   * Whether the decision holds only at the exact revision it was made on
   * (default). When false, an existing incident is enough, so concurrent
   * writers to one busy incident do not have to retry each other.
   */
  exactRevision?: (state: IncidentState) => boolean;
}

/** Folds an incident's CloudEvents into the write-side state. */
export const foldIncident = (incidentId: string, events: CloudEvent[], from: IncidentState = initialState) =>
  events.reduce<IncidentState>((state, event) => evolve(state, toLedgerEvent(event, incidentId)), from);

interface Folded {
  state: IncidentState;
  /** Revision of the last event folded in; -1n for an empty stream. */
  revision: bigint;
  position: bigint;
}

/**
 * The one write path of an incident stream: read → decide → append with the
 * expected revision; on a conflict decide again on fresh state. Answers once
 * the read models show the result, so the caller can read its own write.
 */
@Injectable()
export class IncidentStreamWriter {
  /** Folded state per stream; the log is append-only, so only newer events are read. */
  private readonly folded = new Map<string, Folded>();

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTION_PROGRESS) private readonly projections: ProjectionProgress,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `decide` sees the current state and returns the CloudEvents to append, or throws a DomainError. */
  async write(
    incidentId: string,
    decide: (state: IncidentState) => CloudEvent[],
    options: WriteOptions = {},
  ): Promise<WriteOutcome> {
    const streamId = incidentStreamId(incidentId);
    for (let attempt = 1; ; attempt++) {
      const current = await this.current(incidentId);
      const events = decide(current.state);
      if (events.length === 0) {
        // "No change" may be due to an event someone else appended: answer once the views show it too.
        await this.waitForViews(current.position);
        return { state: current.state, appended: [] };
      }
      const exact = options.exactRevision?.(current.state) ?? true;
      const expected: ExpectedRevision =
        current.revision < 0n ? 'no_stream' : exact ? current.revision : 'stream_exists';
      try {
        const result = await this.eventStore.append(streamId, events, expected, { dedupKeys: options.dedupKeys });
        await this.waitForViews(result.position);
        return { state: foldIncident(incidentId, events, current.state), appended: events };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  waitForViews(position: bigint): Promise<void> {
    return this.projections.waitFor(position, this.config.projectionWaitMs);
  }

  private async current(incidentId: string): Promise<Folded> {
    const cached = this.folded.get(incidentId) ?? { state: initialState, revision: -1n, position: 0n };
    const newer = await this.eventStore.readStream(incidentStreamId(incidentId), cached.revision + 1n);
    if (newer.length === 0) return cached;
    const last = newer[newer.length - 1];
    const folded: Folded = {
      state: foldIncident(incidentId, newer.map((r) => r.event), cached.state),
      revision: last.revision,
      position: last.position,
    };
    this.folded.delete(incidentId);
    this.folded.set(incidentId, folded);
    // Least recently written first: Map keeps insertion order.
    if (this.folded.size > CACHED_STREAMS) this.folded.delete(this.folded.keys().next().value as string);
    return folded;
  }
}
