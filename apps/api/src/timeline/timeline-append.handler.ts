import { Inject, Injectable } from '@nestjs/common';
import { type CloudEvent, incidentSubject, toLedgerEvent } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { ConflictError, decideRecord, dependsOnLifecycle } from '@im/incidents';
import { INCIDENT_STREAM_PREFIX } from '@im/read-models';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';
import { IncidentRouting } from './incident-routing';

export interface AppendAnswer {
  event_id: string;
  created: boolean;
  incident_id: string;
}

const MAX_ID_DRAWS = 20;

/** CloudEvents identity (source, id) and the source system's idempotency key (source, im.origin_id). */
export function dedupKeysOf(event: CloudEvent): string[] {
  const keys = [`id\n${event.source}\n${event.id}`];
  if (event['im.origin_id'] !== undefined) keys.push(`origin\n${event.source}\n${event['im.origin_id']}`);
  return keys;
}

const duplicateAnswer = (existing: RecordedEvent): AppendAnswer => ({
  event_id: existing.event.id,
  created: false,
  incident_id: existing.streamId.slice(INCIDENT_STREAM_PREFIX.length),
});

/** POST /api/v1/timeline/events: idempotent, routed to its incident, decided like any command. */
@Injectable()
export class TimelineAppendHandler {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly writer: IncidentStreamWriter,
    private readonly routing: IncidentRouting,
  ) {}

  async append(event: CloudEvent): Promise<AppendAnswer> {
    const keys = dedupKeysOf(event);
    for (const key of keys) {
      const existing = await this.eventStore.findByDedupKey(key);
      if (existing) return duplicateAnswer(existing);
    }
    for (let draw = 1; ; draw++) {
      const { incidentId, opensIncident } = await this.routing.incidentFor(event);
      const stored: CloudEvent = { ...event, subject: incidentSubject(incidentId) };
      try {
        await this.writer.write(
          incidentId,
          (state) => {
            decideRecord({ kind: 'record', incidentId, event: toLedgerEvent(stored, incidentId) }, state);
            return [stored];
          },
          { dedupKeys: keys, exactRevision: (state) => !state || dependsOnLifecycle(event.type) },
        );
        return { event_id: event.id, created: true, incident_id: incidentId };
      } catch (error) {
        // A concurrent copy of this event won: answer as its duplicate.
        if (error instanceof DuplicateEventError) return duplicateAnswer(error.existing);
        // A freshly drawn incident id that is already taken: draw another.
        if (!(error instanceof ConflictError && opensIncident) || draw >= MAX_ID_DRAWS) throw error;
      }
    }
  }
}
