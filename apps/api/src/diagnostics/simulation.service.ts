import { Inject, Injectable } from '@nestjs/common';
import { incidentSubject } from '@im/cloudevents';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { DomainError, type Duplicate, evolve, INCIDENT_EVENT_TYPES, incidentDecider, incidentIdOfStream, type IncidentState, NotFoundError } from '@im/incidents';
import { PDP, type PolicyDecisionPoint } from '@im/policy';
import { CommandHandler, fingerprintWrites, ID_GENERATOR, type IdGenerator, incidentWrites } from '@im/write-path';
import { IncidentVisibility, type Principal, TIMELINE_ROLES } from '@im/access';
import { type AppendLookups, type FingerprintFacts, planAppend, recording } from '@im/timeline-append';
import { parseCloudEventBody } from '../timeline/cloud-event.body';
import { TimelineReader } from '../timeline/timeline-reader.service';
import type { SimulationRequest } from './simulation.body';


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
 * POST /api/v1/simulate: each event goes through the validation and the
 * planning step of a real append (append-plan.ts), against the stored state
 * the caller could read (ReadableState) plus the earlier events of the same
 * request. The plan is reported, never committed: the store is only read.
 */
@Injectable()
export class SimulationService {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly commands: CommandHandler,
    private readonly reader: TimelineReader,
    private readonly visibility: IncidentVisibility,
    @Inject(PDP) private readonly pdp: PolicyDecisionPoint,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async simulate({ events, dryRun }: SimulationRequest, caller: Principal): Promise<SimulationReport> {
    const readsTimeline = caller.roles.includes(TIMELINE_ROLES.reader);
    // A reader's lookups ask the PDP only when something is stored: without it, fail up front, whatever is stored.
    if (readsTimeline) await this.pdp.ping();
    const stored = new ReadableState(caller, readsTimeline, this.eventStore, this.commands, this.reader, this.visibility);
    const run = new SimulationRun(stored, this.ids);
    const report: SimulationReport = { timestamp: new Date().toISOString(), dry_run: dryRun, events_read: events.length, events_created: [], errors: [] };
    for (const [index, raw] of events.entries()) {
      try {
        report.events_created.push(await run.apply(raw));
      } catch (error) {
        const id = typeof (raw as { id?: unknown })?.id === 'string' ? (raw as { id: string }).id : undefined;
        if (!(error instanceof DomainError)) throw error;
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
    private readonly commands: CommandHandler,
    private readonly reader: TimelineReader,
    private readonly visibility: IncidentVisibility,
  ) {}

  /** The stored event with this dedup key, when the caller may read it. */
  async duplicateIn(key: string): Promise<Duplicate | undefined> {
    if (!this.readsTimeline) return undefined;
    const stored = await this.eventStore.findByDedupKey(key);
    if (!stored) return undefined;
    try {
      await this.reader.event(this.caller, stored.event.id);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
    return { eventId: stored.event.id, incidentId: incidentIdOfStream(stored.streamId) as string };
  }

  /** The incident a fingerprint's alerts join and its state (whoever may see it), when the caller may read an event of that fingerprint there. */
  async fingerprintIncident(fingerprint: string): Promise<{ incidentId: string; state: IncidentState } | undefined> {
    if (!this.readsTimeline) return undefined;
    const incidentId = await this.commands.state(fingerprintWrites, fingerprint);
    if (incidentId === undefined) return undefined;
    const { shown } = await this.reader.search(this.caller, { fingerprint, incidentId, order: 'desc', limit: 1 });
    return shown.length ? { incidentId, state: await this.commands.state(incidentWrites, incidentId) } : undefined;
  }

  async incident(incidentId: string): Promise<IncidentState> {
    const state = await this.commands.state(incidentWrites, incidentId);
    return state && this.visibility.shows(this.caller, state) ? state : undefined;
  }
}

/**
 * One simulation's view of the ledger for planning: what is stored (as the
 * caller may read it) with the plans of the earlier events of the request on top.
 */
class SimulationRun implements AppendLookups<FingerprintFacts> {
  private readonly states = new Map<string, IncidentState>();
  /** Incidents earlier events of this simulation were appended to. */
  private readonly changed = new Set<string>();
  private readonly fingerprints = new Map<string, string>();
  private readonly seen = new Map<string, Duplicate>();

  constructor(
    private readonly stored: ReadableState,
    private readonly ids: IdGenerator,
  ) {}

  async apply(raw: unknown): Promise<SimulatedEvent> {
    const legacy = typeof (raw as { type?: unknown })?.type === 'string' ? LEGACY_TYPES[(raw as { type: string }).type] : undefined;
    const event = parseCloudEventBody(legacy ? { ...(raw as object), type: legacy.type } : raw);
    const reported = (incidentId: string, wouldCreate: SimulatedEvent['would_create']): SimulatedEvent => ({
      id: event.id,
      type: legacy?.reportedAs ?? event.type,
      source: event.source,
      subject: incidentSubject(incidentId),
      time: event.time,
      would_create: wouldCreate,
    });

    const { route, dedupKeys } = await planAppend(event, this);
    if (route.kind === 'duplicate') return reported(route.incidentId, 'nothing');
    const incidentId = route.kind === 'open' ? this.ids.incidentId() : route.incidentId;
    // The claim of a real append, in memory only.
    if (route.kind === 'join') this.fingerprints.set(event['im.fingerprint'] as string, incidentId);
    if (route.kind === 'open' && route.claims !== undefined) this.fingerprints.set(route.claims, incidentId);
    const state = await this.stateOf(incidentId);
    const appended = incidentDecider.decide(recording(event, incidentId, route).command, state);
    this.states.set(incidentId, appended.reduce(evolve, state));
    this.changed.add(incidentId);
    dedupKeys.forEach((key) => this.seen.set(key, { eventId: event.id, incidentId }));
    return reported(incidentId, state ? 'timeline_event' : 'incident');
  }

  async duplicateOf(keys: string[]): Promise<Duplicate | undefined> {
    for (const key of keys) {
      const stored = await this.stored.duplicateIn(key);
      if (stored) return stored;
    }
    const key = keys.find((k) => this.seen.has(k));
    return key === undefined ? undefined : this.seen.get(key);
  }

  /** The fingerprint's incident as stored (as the caller may read it), or as this simulation claimed it; events it appended there count. */
  async fingerprint(fingerprint: string): Promise<FingerprintFacts> {
    const simulated = this.fingerprints.get(fingerprint);
    if (simulated !== undefined) return { bound: simulated, boundIncident: this.states.get(simulated) };
    const stored = await this.stored.fingerprintIncident(fingerprint);
    if (!stored) return { bound: undefined, boundIncident: undefined };
    return { bound: stored.incidentId, boundIncident: this.changed.has(stored.incidentId) ? this.states.get(stored.incidentId) : stored.state };
  }

  /** An incident as stored (as the caller may see it), with this simulation's events on top. */
  incident(incidentId: string): Promise<IncidentState> {
    return this.stateOf(incidentId);
  }

  private async stateOf(incidentId: string): Promise<IncidentState> {
    if (this.states.has(incidentId)) return this.states.get(incidentId);
    const state = await this.stored.incident(incidentId);
    this.states.set(incidentId, state);
    return state;
  }
}
