import { Inject, Injectable } from '@nestjs/common';
import type { CloudEvent } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { incidentIdOfStream, incidentStreamId } from '@im/incidents';
import { CommandHandler, ID_GENERATOR, type IdGenerator, ReadYourWrites, RETRY_POLICY, type RetryPolicy, StreamTakenError } from '@im/write-path';
import { incidentStream } from '../ledger/incident-stream';
import { type AppendAnswer, type AppendResult, appendResultOf } from './append-result';
import type { BatchItem } from './cloud-event.body';
import { type AppendLookups, decideAppend, type Duplicate, planAppend, type PlanOptions, RouteChangedError } from './append-plan';
import { FingerprintClaims } from './fingerprint-claims';


/** An append's answer, and the log position the read models must reach to show it (none for a duplicate). */
export interface Recorded {
  answer: AppendAnswer;
  position?: bigint;
}

/** Only incident streams carry dedup keys. */
const duplicateOf = (recorded: RecordedEvent): Duplicate => ({ eventId: recorded.event.id, incidentId: incidentIdOfStream(recorded.streamId) as string });

const duplicateAnswer = ({ eventId, incidentId }: Duplicate): AppendAnswer => ({ event_id: eventId, created: false, incident_id: incidentId });

/** POST /api/v1/timeline/events: idempotent, routed to its incident, decided like any command. */
@Injectable()
export class TimelineAppendHandler {
  /** The ledger as planning consults it: every stored event, and fingerprint claims that are written. */
  private readonly ledger: AppendLookups = {
    // Asked together, the keys share one lookup of the store; the first key found still decides.
    duplicateOf: async (keys) => {
      const existing = (await Promise.all(keys.map((key) => this.eventStore.findByDedupKey(key)))).find((recorded) => recorded !== undefined);
      return existing && duplicateOf(existing);
    },
    boundIncident: (fingerprint) => this.claims.bound(fingerprint),
    joinOrClaim: (fingerprint) => this.claims.joinOrClaim(fingerprint),
    newIncidentId: () => this.ids.incidentId(),
  };

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly commands: CommandHandler,
    private readonly views: ReadYourWrites,
    private readonly claims: FingerprintClaims,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(RETRY_POLICY) private readonly retry: RetryPolicy,
  ) {}

  /** Records the event, then waits until the read models show it. */
  async append(event: CloudEvent): Promise<AppendAnswer> {
    const { answer, position } = await this.record(event);
    if (position !== undefined) await this.views.waitFor(position);
    return answer;
  }

  /**
   * Plans the append and commits the plan, without waiting for the read
   * models (a caller appending many events waits once, for the last);
   * plans again when a drawn id was taken or the routed incident was resolved meanwhile.
   */
  record(event: CloudEvent, options: PlanOptions = {}): Promise<Recorded> {
    return this.retry.run(
      () => this.commit(event, options),
      (error) => error instanceof RouteChangedError || error instanceof StreamTakenError,
    );
  }

  /** A batch: each event appended as if alone, in order; a refusal is its own entry's answer and undoes nothing. */
  async appendBatch(batch: BatchItem[]): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const [index, item] of batch.entries()) {
      results.push(await appendResultOf(index, () => ('refused' in item ? Promise.reject(item.refused) : this.append(item.event))));
    }
    return results;
  }

  private async commit(event: CloudEvent, options: PlanOptions): Promise<Recorded> {
    const plan = await planAppend(event, this.ledger, options);
    if (plan.kind === 'duplicate') return { answer: duplicateAnswer(plan) };
    try {
      const { position } = await this.commands.handle(incidentStream, incidentStreamId(plan.incidentId), (state) => decideAppend(plan, state), {
        dedupKeys: plan.dedupKeys,
        newStream: plan.opensIncident,
      });
      return { answer: { event_id: event.id, created: true, incident_id: plan.incidentId }, position };
    } catch (error) {
      // A concurrent copy of this event won: answer as its duplicate.
      if (error instanceof DuplicateEventError) return { answer: duplicateAnswer(duplicateOf(error.existing)) };
      throw error;
    }
  }
}
