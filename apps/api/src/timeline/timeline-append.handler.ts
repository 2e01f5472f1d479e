import { Inject, Injectable } from '@nestjs/common';
import { type CloudEvent, incidentSubject, toLedgerEvent } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { ConflictError, decideRecord } from '@im/incidents';
import { INCIDENT_STREAM_PREFIX } from '@im/read-models';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';
import { IncidentRouting, RouteChangedError } from './incident-routing';

export interface AppendAnswer {
  event_id: string;
  created: boolean;
  incident_id: string;
}

/** How often an event is routed again: a fresh incident id was taken, or the routed incident was resolved meanwhile. */
const MAX_ROUTINGS = 20;

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
    for (let routing = 1; ; routing++) {
      const { incidentId, opensIncident, holds } = await this.routing.incidentFor(event);
      const stored: CloudEvent = { ...event, subject: incidentSubject(incidentId) };
      try {
        await this.writer.write(
          incidentId,
          (state) => {
            if (holds && !holds(state)) throw new RouteChangedError(`Incident ${incidentId} changed while the event was routed to it`);
            decideRecord({ kind: 'record', incidentId, event: toLedgerEvent(stored, incidentId) }, state);
            return [stored];
          },
          { dedupKeys: keys },
        );
        return { event_id: event.id, created: true, incident_id: incidentId };
      } catch (error) {
        // A concurrent copy of this event won: answer as its duplicate.
        if (error instanceof DuplicateEventError) return duplicateAnswer(error.existing);
        // A freshly drawn incident id that is already taken, or an incident resolved since routing: route again.
        const reroute = error instanceof RouteChangedError || (error instanceof ConflictError && opensIncident);
        if (!reroute || routing >= MAX_ROUTINGS) throw error;
      }
    }
  }
}
