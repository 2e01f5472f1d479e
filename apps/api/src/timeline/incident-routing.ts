import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { type CloudEvent, incidentIdOfSubject, SERVICE_SOURCE } from '@im/cloudevents';
import { EVENT_STORE, type EventStore, type RecordedEvent, WrongExpectedRevisionError } from '@im/event-store';
import {
  ALERT_RESOLVE_TYPE,
  ALERT_TRIGGER_TYPE,
  ConflictError,
  INCIDENT_EVENT_TYPES,
  INCIDENT_ID_PATTERN,
  type IncidentState,
  InvalidError,
  NotFoundError,
} from '@im/incidents';
import { FINGERPRINT_STREAM_PREFIX } from '@im/persistence';
import { newIncidentId } from '../incidents/incident-command.handler';
import { FoldedStreams } from '../ledger/folded-streams';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';

/** Internal event of a fingerprint's claim stream: alerts with this fingerprint now join this incident. */
export const FINGERPRINT_BIND_TYPE = 'im.fingerprint.bind';

const fingerprintStreamId = (fingerprint: string) =>
  `${FINGERPRINT_STREAM_PREFIX}${createHash('sha256').update(fingerprint).digest('hex').slice(0, 32)}`;

const MAX_ATTEMPTS = 20;

/** Not resolved or closed yet; an incident that was claimed but never written counts as open. */
const unresolved = (state: IncidentState) => !state || (state.status !== 'resolved' && state.status !== 'closed');

/** The incident a fingerprint's alerts join: the last claim of its stream. */
type Binding = { incidentId: string } | undefined;
const bindingOf = (_: Binding, claim: RecordedEvent): Binding => ({ incidentId: String(claim.event.data?.incident_id) });

export interface Route {
  incidentId: string;
  opensIncident: boolean;
  /**
   * What the choice of incident rested on, if it depends on the incident's
   * state: the event may be appended only at a revision where this still
   * holds; where it no longer does, the event is routed again.
   */
  holds?: (state: IncidentState) => boolean;
}

/** The incident an event was routed to changed before the event was stored there: route it again. */
export class RouteChangedError extends ConflictError {}

/** Which incident a timeline event belongs to (decisions.md, "An event without subject"). */
@Injectable()
export class IncidentRouting {
  private readonly bindings: FoldedStreams<Binding>;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly writer: IncidentStreamWriter,
  ) {
    this.bindings = new FoldedStreams<Binding>(eventStore, bindingOf, undefined);
  }

  async incidentFor(event: CloudEvent): Promise<Route> {
    const named = incidentIdOfSubject(event.subject);
    const mayOpen = event.type === INCIDENT_EVENT_TYPES.declare || event.type === ALERT_TRIGGER_TYPE;
    if (named !== undefined) {
      if (mayOpen && !INCIDENT_ID_PATTERN.test(named)) {
        throw new InvalidError('to open an incident, subject must be incident/INC-<8 lowercase hex characters>');
      }
      return { incidentId: named, opensIncident: false };
    }
    const fingerprint = event['im.fingerprint'];
    switch (event.type) {
      case INCIDENT_EVENT_TYPES.declare:
        return { incidentId: newIncidentId(), opensIncident: true };
      case ALERT_TRIGGER_TYPE:
        return fingerprint === undefined
          ? { incidentId: newIncidentId(), opensIncident: true }
          : { incidentId: await this.joinOrClaim(fingerprint), opensIncident: false, holds: unresolved };
      case ALERT_RESOLVE_TYPE: {
        if (fingerprint === undefined) throw new InvalidError('im.alert.resolve needs subject or im.fingerprint');
        const bound = await this.boundIncident(fingerprint);
        if (!bound) throw new NotFoundError(`No incident has joined fingerprint ${fingerprint}`);
        return { incidentId: bound.incidentId, opensIncident: false };
      }
      default:
        throw new InvalidError(`subject (incident/<incident_id>) is required for ${event.type}`);
    }
  }

  private async boundIncident(fingerprint: string) {
    const { state, revision } = await this.bindings.current(fingerprintStreamId(fingerprint));
    return state && { incidentId: state.incidentId, revision };
  }

  /** The incident a fingerprint's alerts currently join, and whether it is still unresolved (read-only). */
  async fingerprintIncident(fingerprint: string): Promise<{ incidentId: string; unresolved: boolean } | undefined> {
    const bound = await this.boundIncident(fingerprint);
    return bound && { incidentId: bound.incidentId, unresolved: unresolved(await this.writer.state(bound.incidentId)) };
  }

  /**
   * The newest not-yet-resolved incident of the fingerprint, or a new one that
   * this call claims. The claim is an append at the expected revision of the
   * fingerprint's stream, so concurrent alerts of one storm agree on one incident.
   * A claim whose incident was never written (a crash in between) is reused.
   */
  private async joinOrClaim(fingerprint: string): Promise<string> {
    const streamId = fingerprintStreamId(fingerprint);
    for (let attempt = 1; ; attempt++) {
      const bound = await this.boundIncident(fingerprint);
      if (bound && unresolved(await this.writer.state(bound.incidentId))) return bound.incidentId;
      const incidentId = newIncidentId();
      const claim: CloudEvent = {
        specversion: '1.0',
        id: randomUUID(),
        source: SERVICE_SOURCE,
        type: FINGERPRINT_BIND_TYPE,
        time: new Date().toISOString(),
        data: { fingerprint, incident_id: incidentId },
      };
      try {
        await this.eventStore.append(streamId, [claim], bound ? bound.revision : 'no_stream');
        return incidentId;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}
