import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { type CloudEvent, toLedgerEvent } from '@im/cloudevents';
import { EVENT_STORE, type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '@im/event-store';
import { evolve, type IncidentState, initialState } from '@im/incidents';
import { incidentStreamId, ProjectionRunner } from '@im/read-models';

const MAX_ATTEMPTS = 20;

export interface WriteOutcome {
  /** State after the write, as the write side decided it. */
  state: IncidentState;
  /** What was appended; empty for a "no change" answer. */
  appended: CloudEvent[];
}

/** Folds an incident's CloudEvents into the write-side state. */
export const foldIncident = (incidentId: string, events: CloudEvent[], from: IncidentState = initialState) =>
  events.reduce<IncidentState>((state, event) => evolve(state, toLedgerEvent(event, incidentId)), from);

/**
 * The one write path of an incident stream: read → decide → append with the
 * expected revision; on a conflict decide again on fresh state. Answers once
 * the read models show the result, so the caller can read its own write.
 */
@Injectable()
export class IncidentStreamWriter {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * `decide` sees the current state and returns the CloudEvents to append (or
   * throws a DomainError). Dedup keys make the append fail with
   * DuplicateEventError if any was recorded before.
   */
  async write(
    incidentId: string,
    decide: (state: IncidentState) => CloudEvent[],
    dedupKeys: string[] = [],
  ): Promise<WriteOutcome> {
    const streamId = incidentStreamId(incidentId);
    for (let attempt = 1; ; attempt++) {
      const stream = await this.eventStore.readStream(streamId);
      const state = foldIncident(incidentId, stream.map((recorded) => recorded.event));
      const events = decide(state);
      if (events.length === 0) {
        // "No change" may be due to an event someone else appended: answer once the views show it too.
        await this.waitForViews(stream[stream.length - 1]?.position ?? 0n);
        return { state, appended: [] };
      }
      const expected = stream.length === 0 ? 'no_stream' : stream[stream.length - 1].revision;
      try {
        const result = await this.eventStore.append(streamId, events, expected, { dedupKeys });
        await this.waitForViews(result.position);
        return { state: foldIncident(incidentId, events, state), appended: events };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  waitForViews(position: bigint): Promise<void> {
    return this.projections.waitFor(position, this.config.projectionWaitMs);
  }
}
