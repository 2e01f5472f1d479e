import { Inject, Injectable } from '@nestjs/common';
import { type CloudEvent, type EnvelopeContext, toCloudEvent } from '@im/cloudevents';
import { type DeclareIncident, ESCALATION_ACTOR, type Incident, type IncidentCommand, type IncidentEvent, type IncidentState, type LedgerEvent, NO_STEPS, type Transition } from '@im/incidents';
import { CLOCK, type Clock, CommandHandler, type Executed, ID_GENERATOR, type IdGenerator, incidentWrites } from '@im/write-path';
import { IncidentQueryService, IncidentVisibility, type Principal } from '@im/access';
import { PagingPlans, ServiceAssignments, withServiceAssignment } from '@im/paging';

export interface CommandContext {
  /** Who asks: the events' im.actor, and whose clearance and roles the decision weighs. */
  caller: Principal;
  /** Extension attributes for the appended events (e.g. im.visibility). */
  attributes?: EnvelopeContext['attributes'];
  /** The events' im.actor when it is not the caller (a responder's escalation is recorded by system:escalation). */
  actor?: string;
}

/** What a declaration needs besides the id and time the handler assigns, and the service it finds. */
export type DeclareInput = Omit<DeclareIncident, 'kind' | 'incidentId' | 'time' | 'service'>;

/** What a declare (REST or GraphQL) asks the handler for: the input, and the attributes its visibility records. */
export interface DeclareRequest {
  input: DeclareInput;
  attributes: EnvelopeContext['attributes'];
}

/** A command on an existing incident, given its id and the time it is decided at. */
type CommandOn = (incidentId: string, time: string) => IncidentCommand;

/**
 * REST (and GraphQL) incident commands, decided by the domain and written to
 * the incident's stream through the one write path. Each answers the
 * incident as the read models show it once the command is stored (as the
 * caller may see it), so a route makes one call. An incident withheld from the
 * caller answers every command as if it did not exist (404), before any other
 * rule can answer 409 or 403.
 */
@Injectable()
export class IncidentCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    private readonly visibility: IncidentVisibility,
    private readonly incidents: IncidentQueryService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly services: ServiceAssignments,
    private readonly plans: PagingPlans,
  ) {}

  async declare(input: DeclareInput, context: CommandContext): Promise<Incident> {
    // The first of its services naming one is the incident's, fixed as it opens.
    const service = await this.services.forOpening(undefined, { services: input.services });
    // Not through the visibility gate: a drawn id that is taken is drawn again, whoever can see its incident.
    const { key } = await this.commands.execute(
      incidentWrites,
      () => this.ids.incidentId(),
      (incidentId): IncidentCommand => ({ kind: 'declare', incidentId, time: this.now(), ...input, service }),
      { envelope: withServiceAssignment(this.envelope(context), context.caller.sub) },
    );
    return this.incidents.get(context.caller, key);
  }

  /**
   * A responder pages the next step now (reason manual), recorded by
   * system:escalation with the caller as its sender; the targets are those of
   * this instant. An incident whose policy is gone has no step left (409).
   */
  async escalate(incidentId: string, context: CommandContext): Promise<Incident> {
    const policyId = this.shown(incidentId, await this.commands.state(incidentWrites, incidentId), context)?.escalation?.policyId;
    const plan = (policyId && (await this.plans.planFor(policyId, this.clock.now()))) || { policy: NO_STEPS, targets: [] };
    return this.run(incidentId, { ...context, actor: ESCALATION_ACTOR }, (id, time) => ({ kind: 'escalate', incidentId: id, time, reason: 'manual', ...plan }));
  }

  transition(incidentId: string, kind: Transition, context: CommandContext): Promise<Incident> {
    return this.run(incidentId, context, (id, time) => ({ kind, incidentId: id, time }));
  }

  /** `of` is read once, as the caller may see it: an incident withheld from them is as missing (404). */
  async markDuplicate(incidentId: string, of: string, context: CommandContext): Promise<Incident> {
    const ofState = this.shown(of, await this.commands.state(incidentWrites, of), context);
    return this.run(incidentId, context, (id, time) => ({ kind: 'duplicate', incidentId: id, time, of, ofState }));
  }

  assignRole(incidentId: string, role: unknown, userId: unknown, context: CommandContext): Promise<Incident> {
    const { sub: id, roles } = context.caller;
    return this.run(incidentId, context, (incident, time) => ({ kind: 'assign_role', incidentId: incident, time, role, userId, caller: { id, roles } }));
  }

  /** The same severity again appends nothing. */
  changeSeverity(incidentId: string, severity: unknown, context: CommandContext): Promise<Incident> {
    return this.run(incidentId, context, (id, time) => ({ kind: 'change_severity', incidentId: id, time, severity }));
  }

  /** Returns the note event as stored. */
  async addNote(incidentId: string, content: unknown, context: CommandContext): Promise<CloudEvent> {
    const { appended } = await this.write(incidentId, context, (id, time) => ({ kind: 'add_note', incidentId: id, time, content }));
    return appended[0];
  }

  /** A command on an existing incident, answered with the incident as the read models show it. */
  private async run(incidentId: string, context: CommandContext, command: CommandOn): Promise<Incident> {
    await this.write(incidentId, context, command);
    return this.incidents.get(context.caller, incidentId);
  }

  /** Decided only on what the caller may see; a "no change" too waits for the read models, as it may rest on someone else's event. */
  private write(incidentId: string, context: CommandContext, command: CommandOn): Promise<Executed<IncidentState, IncidentEvent | LedgerEvent>> {
    // Built when decided, on every attempt: an event's time is never earlier than those stored before it.
    return this.commands.execute(incidentWrites, incidentId, (id) => command(id, this.now()), {
      envelope: this.envelope(context),
      seen: (state) => this.shown(incidentId, state, context),
    });
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** The state a decision may see: none when the incident is withheld from the caller. */
  private shown(incidentId: string, state: IncidentState, { caller }: CommandContext): IncidentState {
    return state && this.visibility.reveal(caller, incidentId, state);
  }

  private envelope(context: CommandContext): (event: IncidentEvent | LedgerEvent) => CloudEvent {
    return (event) => toCloudEvent(event as IncidentEvent, { actor: context.actor ?? context.caller.sub, sender: context.caller.sub, attributes: context.attributes });
  }
}
