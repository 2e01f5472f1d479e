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
  NotFoundError,
} from '@im/incidents';
import { PDP, type PolicyDecisionPoint } from '@im/policy';
import { INCIDENT_STREAM_PREFIX, incidentStreamId } from '@im/read-models';
import { type Principal, TIMELINE_ROLES } from '../auth/principal';
import { newIncidentId } from '../incidents/incident-command.handler';
import { foldIncident } from '../ledger/incident-stream.writer';
import { IncidentVisibility } from '../policy/incident-visibility';
import { IncidentRouting } from '../timeline/incident-routing';
import { dedupKeysOf } from '../timeline/timeline-append.handler';
import { TimelineReader } from '../timeline/timeline-reader.service';

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
 * decider of a real append, against the stored state the caller could read
 * (ReadableState) plus the earlier events of the same request. Nothing is
 * written: the store is only read.
 */
@Injectable()
export class SimulationService {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly routing: IncidentRouting,
    private readonly reader: TimelineReader,
    private readonly visibility: IncidentVisibility,
    @Inject(PDP) private readonly pdp: PolicyDecisionPoint,
  ) {}

  async simulate(body: unknown, caller: Principal): Promise<SimulationReport> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestException('Request body must be a JSON object');
    const { events, dry_run: dryRun = true } = body as { events?: unknown; dry_run?: unknown };
    if (!Array.isArray(events)) throw new BadRequestException('events must be an array of CloudEvents');
    if (events.length > MAX_SIMULATED_EVENTS) throw new BadRequestException(`at most ${MAX_SIMULATED_EVENTS} events per simulation`);
    if (typeof dryRun !== 'boolean') throw new BadRequestException('dry_run must be true or false');

    const readsTimeline = caller.roles.includes(TIMELINE_ROLES.reader);
    // A reader's lookups ask the PDP only when something is stored: without it, fail up front, whatever is stored.
    if (readsTimeline) await this.pdp.ping();
    const stored = new ReadableState(caller, readsTimeline, this.eventStore, this.routing, this.reader, this.visibility);
    const run = new SimulationRun(stored, this.routing);
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

/**
 * The stored state a simulation may consult: only what the caller could read
 * through the API, so a simulation reveals nothing a read would not. An
 * incident withheld from the caller is absent. Duplicates and fingerprint
 * bindings are timeline data: consulted only for a timeline.reader, and only
 * where the policy shows them a stored event that establishes them. Anything
 * else is simulated as if it were not stored.
 */
class ReadableState {
  constructor(
    private readonly caller: Principal,
    private readonly readsTimeline: boolean,
    private readonly eventStore: EventStore,
    private readonly routing: IncidentRouting,
    private readonly reader: TimelineReader,
    private readonly visibility: IncidentVisibility,
  ) {}

  /** The incident of a stored event with this dedup key, when the caller may read that event. */
  async duplicateIn(key: string): Promise<string | undefined> {
    if (!this.readsTimeline) return undefined;
    const stored = await this.eventStore.findByDedupKey(key);
    if (!stored) return undefined;
    try {
      await this.reader.event(this.caller, stored.event.id);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
    return stored.streamId.slice(INCIDENT_STREAM_PREFIX.length);
  }

  /** The incident a fingerprint's alerts join, when the caller may read an event of that fingerprint there. */
  async fingerprintIncident(fingerprint: string): Promise<{ incidentId: string; unresolved: boolean } | undefined> {
    if (!this.readsTimeline) return undefined;
    const bound = await this.routing.fingerprintIncident(fingerprint);
    if (!bound) return undefined;
    const { entries } = await this.reader.search(this.caller, { fingerprint, incidentId: bound.incidentId, order: 'desc', limit: 1 });
    return entries.length ? bound : undefined;
  }

  async incident(incidentId: string): Promise<IncidentState> {
    const stream = await this.eventStore.readStream(incidentStreamId(incidentId));
    const state = foldIncident(incidentId, stream.map((r) => r.event));
    return state && this.visibility.shows(this.caller, state) ? state : undefined;
  }
}

/** The state one simulation builds up in memory on top of what is stored. */
class SimulationRun {
  private readonly states = new Map<string, IncidentState>();
  private readonly fingerprints = new Map<string, string>();
  private readonly seenKeys = new Set<string>();

  constructor(
    private readonly stored: ReadableState,
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
      const incidentId = await this.stored.duplicateIn(key);
      if (incidentId) return reported(incidentId, 'nothing');
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

  /** The routing of a real append, without claiming a fingerprint, over what the caller may read. */
  private async incidentFor(event: CloudEvent): Promise<string> {
    const fingerprint = event['im.fingerprint'];
    const byFingerprint = async () => {
      const simulated = fingerprint && this.fingerprints.get(fingerprint);
      if (simulated) return { incidentId: simulated, unresolved: true };
      return fingerprint ? this.stored.fingerprintIncident(fingerprint) : undefined;
    };
    if (event.type === ALERT_TRIGGER_TYPE && !event.subject && fingerprint) {
      const current = await byFingerprint();
      const incidentId = current?.unresolved ? current.incidentId : newIncidentId();
      this.fingerprints.set(fingerprint, incidentId);
      return incidentId;
    }
    if (event.type === ALERT_RESOLVE_TYPE && !event.subject && fingerprint) {
      const current = await byFingerprint();
      if (!current) throw new NotFoundError(`No incident has joined fingerprint ${fingerprint}`);
      return current.incidentId;
    }
    // The other cases of the real routing read nothing stored (the fingerprint cases are all above).
    return (await this.routing.incidentFor(event)).incidentId;
  }

  private async stateOf(incidentId: string): Promise<IncidentState> {
    if (this.states.has(incidentId)) return this.states.get(incidentId);
    const state = await this.stored.incident(incidentId);
    this.states.set(incidentId, state);
    return state;
  }
}
