import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { checkCloudEvent, type CloudEvent, incidentIdOfSubject, incidentSubject, toLedgerEvent } from '@im/cloudevents';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import {
  ALERT_RESOLVE_TYPE,
  ALERT_TRIGGER_TYPE,
  decideRecord,
  DomainError,
  evolve,
  INCIDENT_EVENT_TYPES,
  type IncidentState,
} from '@im/incidents';
import { incidentStreamId } from '@im/read-models';
import { newIncidentId } from '../incidents/incident-command.handler';
import { foldIncident } from '../ledger/incident-stream.writer';
import { IncidentRouting } from '../timeline/incident-routing';
import { dedupKeysOf } from '../timeline/timeline-append.handler';

export const MAX_SIMULATED_EVENTS = 1000;

/** Older event type names some senders still use: what they mean now, and how a simulation reports them. */
const LEGACY_TYPES: Record<string, { type: string; reportedAs: string }> = {
  'incident.trigger': { type: INCIDENT_EVENT_TYPES.declare, reportedAs: 'incident.declared' },
  'incident.acknowledge': { type: INCIDENT_EVENT_TYPES.ack, reportedAs: 'incident.acknowledged' },
  'incident.mitigate': { type: INCIDENT_EVENT_TYPES.mitigate, reportedAs: 'incident.mitigated' },
  'incident.resolve': { type: INCIDENT_EVENT_TYPES.resolve, reportedAs: 'incident.resolved' },
  'incident.close': { type: INCIDENT_EVENT_TYPES.close, reportedAs: 'incident.closed' },
};

export interface SimulatedEvent {
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  /** incident (opens one), timeline_event (joins one), or nothing (a duplicate of a stored event). */
  would_create: 'incident' | 'timeline_event' | 'nothing';
}

export interface SimulationReport {
  timestamp: string;
  dry_run: boolean;
  events_read: number;
  events_created: SimulatedEvent[];
  errors: { index: number; id?: string; error: string }[];
}

/**
 * POST /api/v1/simulate: each event goes through the validation, routing and
 * decider of a real append, against the current state plus the earlier events
 * of the same request. Nothing is written: the store is only read.
 */
@Injectable()
export class SimulationService {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly routing: IncidentRouting,
  ) {}

  async simulate(body: unknown): Promise<SimulationReport> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestException('Request body must be a JSON object');
    const { events, dry_run: dryRun = true } = body as { events?: unknown; dry_run?: unknown };
    if (!Array.isArray(events)) throw new BadRequestException('events must be an array of CloudEvents');
    if (events.length > MAX_SIMULATED_EVENTS) throw new BadRequestException(`at most ${MAX_SIMULATED_EVENTS} events per simulation`);
    if (typeof dryRun !== 'boolean') throw new BadRequestException('dry_run must be true or false');

    const run = new SimulationRun(this.eventStore, this.routing);
    const report: SimulationReport = { timestamp: new Date().toISOString(), dry_run: dryRun, events_read: events.length, events_created: [], errors: [] };
    for (const [index, raw] of events.entries()) {
      try {
        report.events_created.push(await run.apply(raw));
      } catch (error) {
        const id = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : undefined;
        if (!(error instanceof DomainError) && !(error instanceof BadRequestException)) throw error;
        report.errors.push({ index, ...(id ? { id } : {}), error: error.message });
      }
    }
    return report;
  }
}

/** The state one simulation builds up in memory on top of what is stored. */
class SimulationRun {
  private readonly states = new Map<string, IncidentState>();
  private readonly fingerprints = new Map<string, string>();
  private readonly seenKeys = new Set<string>();

  constructor(
    private readonly eventStore: EventStore,
    private readonly routing: IncidentRouting,
  ) {}

  async apply(raw: unknown): Promise<SimulatedEvent> {
    const legacy = typeof (raw as { type?: unknown })?.type === 'string' ? LEGACY_TYPES[(raw as { type: string }).type] : undefined;
    const check = checkCloudEvent(legacy ? { ...(raw as object), type: legacy.type } : raw);
    if (!check.ok) throw new BadRequestException(`Invalid CloudEvent: ${check.errors.join('; ')}`);
    const event = check.event;
    const reported = (incidentId: string, wouldCreate: SimulatedEvent['would_create']): SimulatedEvent => ({
      id: event.id,
      type: legacy?.reportedAs ?? event.type,
      source: event.source,
      subject: incidentSubject(incidentId),
      time: event.time,
      would_create: wouldCreate,
    });

    const keys = dedupKeysOf(event);
    for (const key of keys) {
      const stored = await this.eventStore.findByDedupKey(key);
      if (stored) return reported(stored.streamId.replace(/^incident-/, ''), 'nothing');
    }
    if (keys.some((key) => this.seenKeys.has(key))) return reported(incidentIdOfSubject(event.subject) ?? 'unknown', 'nothing');

    const incidentId = await this.incidentFor(event);
    const state = await this.stateOf(incidentId);
    const stored: CloudEvent = { ...event, subject: incidentSubject(incidentId) };
    decideRecord({ kind: 'record', incidentId, event: toLedgerEvent(stored, incidentId) }, state);
    this.states.set(incidentId, evolve(state, toLedgerEvent(stored, incidentId)));
    keys.forEach((key) => this.seenKeys.add(key));
    return reported(incidentId, state ? 'timeline_event' : 'incident');
  }

  /** The routing of a real append, without claiming a fingerprint. */
  private async incidentFor(event: CloudEvent): Promise<string> {
    const fingerprint = event['im.fingerprint'];
    const byFingerprint = async () => {
      const simulated = fingerprint && this.fingerprints.get(fingerprint);
      if (simulated) return { incidentId: simulated, unresolved: true };
      return fingerprint ? this.routing.fingerprintIncident(fingerprint) : undefined;
    };
    if (event.type === ALERT_TRIGGER_TYPE && !event.subject && fingerprint) {
      const current = await byFingerprint();
      const incidentId = current?.unresolved ? current.incidentId : newIncidentId();
      this.fingerprints.set(fingerprint, incidentId);
      return incidentId;
    }
    if (event.type === ALERT_RESOLVE_TYPE && !event.subject && fingerprint) {
      const current = await byFingerprint();
      if (current) return current.incidentId;
    }
    // Every other case of the real routing only reads (the one write, a fingerprint claim, is handled above).
    return (await this.routing.incidentFor(event)).incidentId;
  }

  private async stateOf(incidentId: string): Promise<IncidentState> {
    if (this.states.has(incidentId)) return this.states.get(incidentId);
    const stream = await this.eventStore.readStream(incidentStreamId(incidentId));
    const state = foldIncident(incidentId, stream.map((r) => r.event));
    this.states.set(incidentId, state);
    return state;
  }
}
