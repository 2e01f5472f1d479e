import { Inject, Injectable } from '@nestjs/common';
import { type CloudEvent, senderOf, SERVICE_SOURCE } from '@im/cloudevents';
import { DuplicateEventError, EVENT_STORE, type EventStore, type RecordedEvent } from '@im/event-store';
import { type Duplicate, type FingerprintState, incidentIdOfStream, RouteChangedError, SERVICE_ASSIGNMENT_ACTOR, type StreamEvent } from '@im/incidents';
import {
  CLOCK,
  type Clock,
  CommandHandler,
  type Folded,
  fingerprintWrites,
  ID_GENERATOR,
  type IdGenerator,
  incidentWrites,
  type StreamCommand,
} from '@im/write-path';
import { type AlertRecorder, ServiceAssignments, withServiceAssignment } from '@im/paging';
import { type AppendLookups, type AppendPlan, type FingerprintFacts, planAppend, type PlanOptions, recording } from './append-plan';

/** What one append answers: the stored (or already stored) event and its incident. */
export interface AppendAnswer {
  event_id: string;
  created: boolean;
  incident_id: string;
}

/** An append's answer, and the log position the read models must reach to show it (none for a duplicate). */
export interface Recorded {
  answer: AppendAnswer;
  position?: bigint;
}

/** What the real append reads of a fingerprint: also the claims' revision, which an opening alert's claim is appended at. */
interface StoredFingerprint extends FingerprintFacts {
  claims: Folded<FingerprintState>;
}

/** Only incident streams carry dedup keys. */
const duplicateOf = (recorded: RecordedEvent): Duplicate => ({ eventId: recorded.event.id, incidentId: incidentIdOfStream(recorded.streamId) as string });

const duplicateAnswer = ({ eventId, incidentId }: Duplicate): AppendAnswer => ({ event_id: eventId, created: false, incident_id: incidentId });

/**
 * The timeline and alert write path (POST /api/v1/timeline/events, alert
 * payloads, heartbeats): idempotent, routed to its incident by the domain
 * (routeEvent), decided like any command, in the write path's one retry
 * loop: a stale revision, a taken id or a changed route plans again.
 */
@Injectable()
export class TimelineAppendHandler implements AlertRecorder {
  /** Per fingerprint, the opening of its incident under way in this process. */
  private readonly opening = new Map<string, Promise<unknown>>();

  /** The ledger as planning consults it: every stored event, and the fingerprints' claims. */
  private readonly ledger: AppendLookups<StoredFingerprint> = {
    // Asked together, the keys share one lookup of the store; the first key found still decides.
    duplicateOf: async (keys) => {
      const existing = (await Promise.all(keys.map((key) => this.eventStore.findByDedupKey(key)))).find((recorded) => recorded !== undefined);
      return existing && duplicateOf(existing);
    },
    fingerprint: async (fingerprint) => {
      const claims = await this.commands.current(fingerprintWrites, fingerprint);
      const bound = claims.state;
      return { claims, bound, boundIncident: bound === undefined ? undefined : await this.commands.state(incidentWrites, bound) };
    },
    incident: (incidentId) => this.commands.state(incidentWrites, incidentId),
  };

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly commands: CommandHandler,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly services: ServiceAssignments,
  ) {}

  /** Records the event, then waits until the read models show it. */
  async append(event: CloudEvent): Promise<AppendAnswer> {
    return (await this.commands.run('incident', () => this.commit(event, {}))).answer;
  }

  /** Records the event without waiting for the read models (a caller appending many events waits once, for the last). */
  record(event: CloudEvent, options: PlanOptions = {}): Promise<Recorded> {
    return this.commands.run('incident', () => this.commit(event, options), { wait: false });
  }

  /** One attempt: plan, then store on the incident routed to (with the writes queued on it), or open one. */
  private async commit(event: CloudEvent, options: PlanOptions): Promise<Recorded> {
    try {
      const plan = await planAppend(event, this.ledger, options);
      const { route, dedupKeys } = plan;
      if (route.kind === 'duplicate') return { answer: duplicateAnswer(route) };
      if (route.kind === 'open') return await this.open(event, plan);
      const { stored, command } = recording(event, route.incidentId, route);
      const { position } = await this.commands.once(incidentWrites, route.incidentId, command, { envelope: () => stored, dedupKeys });
      return { answer: { event_id: event.id, created: true, incident_id: route.incidentId }, position };
    } catch (error) {
      // A concurrent copy of this event won: answer as its duplicate.
      if (error instanceof DuplicateEventError) return { answer: duplicateAnswer(duplicateOf(error.existing)) };
      throw error;
    }
  }

  /**
   * A new incident under a freshly drawn id (a taken one is a conflict: drawn
   * again), with the claim of the alert's fingerprint at the revision routing
   * read: one atomic append, so no claim names an incident that was never written.
   * While another alert of the fingerprint opens one in this process, the
   * alert waits for it and is routed again (it joins it) instead of racing it.
   */
  private async open(event: CloudEvent, { route, dedupKeys, fingerprint }: AppendPlan<StoredFingerprint>): Promise<Recorded> {
    const claims = route.kind === 'open' ? route.claims : undefined;
    const inFlight = claims === undefined ? undefined : this.opening.get(claims);
    if (inFlight) {
      await inFlight.catch(() => undefined);
      throw new RouteChangedError(`Fingerprint ${claims} was claimed while the alert was routed`);
    }
    const incidentId = this.ids.incidentId();
    const { stored, command } = recording(event, incidentId, route);
    // The incident's service is fixed now, recorded in the same append as the event that opens it.
    const sender = senderOf(stored);
    const service = await this.services.forOpening(sender, stored.data as Record<string, unknown> | undefined);
    const envelope = withServiceAssignment(() => stored, sender ?? SERVICE_ASSIGNMENT_ACTOR);
    const opening: StreamCommand<unknown, unknown, unknown>[] = [{ model: incidentWrites, key: incidentId, command: { ...command, service }, envelope, dedupKeys }];
    if (claims !== undefined && fingerprint) {
      const claim = { kind: 'claim' as const, fingerprint: claims, incidentId };
      opening.unshift({ model: fingerprintWrites, key: claims, command: claim, envelope: (decided: StreamEvent) => this.claimEvent(decided), base: fingerprint.claims });
    }
    const writing = this.commands.together(opening);
    if (claims !== undefined) {
      this.opening.set(claims, writing);
      const done = () => this.opening.get(claims) === writing && this.opening.delete(claims);
      writing.then(done, done);
    }
    const written = await writing;
    return { answer: { event_id: event.id, created: true, incident_id: incidentId }, position: written[written.length - 1].position };
  }

  private claimEvent({ type, data }: StreamEvent): CloudEvent {
    return { specversion: '1.0', id: this.ids.eventId(), source: SERVICE_SOURCE, type, time: this.clock.now().toISOString(), data: { ...data } };
  }
}
