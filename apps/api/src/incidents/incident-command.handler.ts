import { Inject, Injectable } from '@nestjs/common';
import { type CloudEvent, type EnvelopeContext, toCloudEvent } from '@im/cloudevents';
import { decide, type DeclareIncident, type Incident, type IncidentState, incidentStreamId, type Transition } from '@im/incidents';
import { CLOCK, type Clock, CommandHandler, type Handled, ID_GENERATOR, type IdGenerator, ReadYourWrites } from '@im/write-path';
import { IncidentVisibility, type Principal } from '@im/access';
import { incidentStream } from '../ledger/incident-stream';

export interface CommandContext {
  /** Who asks: the events' im.actor, and whose clearance and roles the decision weighs. */
  caller: Principal;
  /** Extension attributes for the appended events (e.g. im.visibility). */
  attributes?: EnvelopeContext['attributes'];
}

/** What a declaration needs besides the id and time the handler assigns. */
export type DeclareInput = Omit<DeclareIncident, 'kind' | 'incidentId' | 'time'>;

/** What a declare (REST or GraphQL) asks the handler for: the input, and the attributes its visibility records. */
export interface DeclareRequest {
  input: DeclareInput;
  attributes: EnvelopeContext['attributes'];
}

type DecideEvents = (state: IncidentState) => ReturnType<typeof decide>;

/**
 * REST (and GraphQL) incident commands, decided by the domain and written to
 * the incident's stream. An incident withheld from the caller answers every
 * command as if it did not exist (404), before any other rule can answer 409 or 403.
 */
@Injectable()
export class IncidentCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    private readonly views: ReadYourWrites,
    private readonly visibility: IncidentVisibility,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async declare(input: DeclareInput, context: CommandContext): Promise<Incident> {
    // Not through the visibility gate: a drawn id that is taken is drawn again, whoever can see its incident.
    const handled = await this.commands.handleNew(
      incidentStream,
      () => this.ids.incidentId(),
      incidentStreamId,
      (incidentId, state) => this.decided(context, decide({ kind: 'declare', incidentId, time: this.now(), ...input }, state)),
    );
    return (await this.answered(handled)).state as Incident;
  }

  transition(incidentId: string, kind: Transition, context: CommandContext): Promise<Incident> {
    return this.run(incidentId, context, (state) => decide({ kind, incidentId, time: this.now() }, state));
  }

  assignRole(incidentId: string, role: unknown, userId: unknown, context: CommandContext): Promise<Incident> {
    const { sub: id, roles } = context.caller;
    return this.run(incidentId, context, (state) =>
      decide({ kind: 'assign_role', incidentId, time: this.now(), role, userId, caller: { id, roles } }, state),
    );
  }

  /** The same severity again appends nothing. */
  changeSeverity(incidentId: string, severity: unknown, context: CommandContext): Promise<Incident> {
    return this.run(incidentId, context, (state) => decide({ kind: 'change_severity', incidentId, time: this.now(), severity }, state));
  }

  /** Returns the note event as stored. */
  async addNote(incidentId: string, content: unknown, context: CommandContext): Promise<CloudEvent> {
    const { appended } = await this.write(incidentId, context, (state) => decide({ kind: 'add_note', incidentId, time: this.now(), content }, state));
    return appended[0];
  }

  /** A command on an existing incident: decided only on what the caller may see. */
  private async run(incidentId: string, context: CommandContext, decideEvents: DecideEvents): Promise<Incident> {
    return (await this.write(incidentId, context, decideEvents)).state as Incident;
  }

  private async write(incidentId: string, context: CommandContext, decideEvents: DecideEvents): Promise<Handled<IncidentState>> {
    const handled = await this.commands.handle(incidentStream, incidentStreamId(incidentId), (state) =>
      this.decided(context, decideEvents(this.shown(incidentId, state, context))),
    );
    return this.answered(handled);
  }

  /** "No change" may be due to an event someone else appended: answer once the views show it too. */
  private async answered<T extends Handled<IncidentState>>(handled: T): Promise<T> {
    await this.views.waitFor(handled.position);
    return handled;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** The state a decision may see: none when the incident is withheld from the caller. */
  private shown(incidentId: string, state: IncidentState, { caller }: CommandContext): IncidentState {
    return state && this.visibility.reveal(caller, incidentId, state);
  }

  private decided(context: CommandContext, events: ReturnType<typeof decide>): CloudEvent[] {
    return events.map((event) => toCloudEvent(event, { actor: context.caller.sub, sender: context.caller.sub, attributes: context.attributes }));
  }
}
