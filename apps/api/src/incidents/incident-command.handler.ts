import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type CloudEvent, type EnvelopeContext, toCloudEvent } from '@im/cloudevents';
import { ConflictError, decide, type DeclareIncident, type Incident, type IncidentState, type Transition } from '@im/incidents';
import type { Principal } from '../auth/principal';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';
import { IncidentVisibility } from '../policy/incident-visibility';

const MAX_ID_DRAWS = 20;

export interface CommandContext {
  /** Who asks: the events' im.actor, and whose clearance and roles the decision weighs. */
  caller: Principal;
  /** Extension attributes for the appended events (e.g. im.visibility). */
  attributes?: EnvelopeContext['attributes'];
}

/** What a declaration needs besides the id and time the handler assigns. */
export type DeclareInput = Omit<DeclareIncident, 'kind' | 'incidentId' | 'time'>;

export const newIncidentId = () => `INC-${randomBytes(4).toString('hex')}`;

const now = () => new Date().toISOString();

type DecideEvents = (state: IncidentState) => ReturnType<typeof decide>;

/**
 * REST (and GraphQL) incident commands, decided by the domain and written to
 * the incident's stream. An incident withheld from the caller answers every
 * command as if it did not exist (404), before any other rule can answer 409 or 403.
 */
@Injectable()
export class IncidentCommandHandler {
  constructor(
    private readonly writer: IncidentStreamWriter,
    private readonly visibility: IncidentVisibility,
  ) {}

  async declare(input: DeclareInput, context: CommandContext): Promise<Incident> {
    for (let draw = 1; ; draw++) {
      const incidentId = newIncidentId();
      try {
        // Not through the visibility gate: a drawn id that is taken must answer Conflict, whoever can see it.
        return await this.append(incidentId, context, (state) =>
          decide({ kind: 'declare', incidentId, time: now(), ...input }, state),
        );
      } catch (error) {
        // A random id that is already taken: draw another.
        if (!(error instanceof ConflictError) || draw >= MAX_ID_DRAWS) throw error;
      }
    }
  }

  transition(incidentId: string, kind: Transition, context: CommandContext): Promise<Incident> {
    return this.run(incidentId, context, (state) => decide({ kind, incidentId, time: now() }, state));
  }

  assignRole(incidentId: string, role: unknown, userId: unknown, context: CommandContext): Promise<Incident> {
    const { sub: id, roles } = context.caller;
    return this.run(incidentId, context, (state) =>
      decide({ kind: 'assign_role', incidentId, time: now(), role, userId, caller: { id, roles } }, state),
    );
  }

  /** Returns the note event as stored. */
  async addNote(incidentId: string, content: unknown, context: CommandContext): Promise<CloudEvent> {
    const { appended } = await this.writer.write(
      incidentId,
      (state) => this.decided(context, decide({ kind: 'add_note', incidentId, time: now(), content }, this.shown(incidentId, state, context))),
    );
    return appended[0];
  }

  /** A command on an existing incident: decided only on what the caller may see. */
  private run(incidentId: string, context: CommandContext, decideEvents: DecideEvents): Promise<Incident> {
    return this.append(incidentId, context, (state) => decideEvents(this.shown(incidentId, state, context)));
  }

  private async append(incidentId: string, context: CommandContext, decideEvents: DecideEvents): Promise<Incident> {
    const { state } = await this.writer.write(incidentId, (current) => this.decided(context, decideEvents(current)));
    return state as Incident;
  }

  /** The state a decision may see: none when the incident is withheld from the caller. */
  private shown(incidentId: string, state: IncidentState, { caller }: CommandContext): IncidentState {
    return state && this.visibility.reveal(caller, incidentId, state);
  }

  private decided(context: CommandContext, events: ReturnType<typeof decide>): CloudEvent[] {
    return events.map((event) => toCloudEvent(event, { actor: context.caller.sub, attributes: context.attributes }));
  }
}
