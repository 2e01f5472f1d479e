import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type CloudEvent, type EnvelopeContext, toCloudEvent } from '@im/cloudevents';
import { ConflictError, decide, type DeclareIncident, type Incident, type Transition } from '@im/incidents';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';

const MAX_ID_DRAWS = 20;

export interface CommandContext {
  actor: string;
  /** Extension attributes for the appended events (e.g. im.visibility). */
  attributes?: EnvelopeContext['attributes'];
}

/** What a declaration needs besides the id and time the handler assigns. */
export type DeclareInput = Omit<DeclareIncident, 'kind' | 'incidentId' | 'time'>;

export const newIncidentId = () => `INC-${randomBytes(4).toString('hex')}`;

const now = () => new Date().toISOString();

/** REST (and GraphQL) incident commands, decided by the domain and written to the incident's stream. */
@Injectable()
export class IncidentCommandHandler {
  constructor(private readonly writer: IncidentStreamWriter) {}

  async declare(input: DeclareInput, context: CommandContext): Promise<Incident> {
    for (let draw = 1; ; draw++) {
      const incidentId = newIncidentId();
      try {
        return await this.run(incidentId, context, (state) =>
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
    return this.run(incidentId, context, (state) =>
      decide({ kind: 'assign_role', incidentId, time: now(), role, userId, assignedBy: context.actor }, state),
    );
  }

  /** Returns the note event as stored. */
  async addNote(incidentId: string, content: unknown, context: CommandContext): Promise<CloudEvent> {
    const { appended } = await this.writer.write(
      incidentId,
      (state) => decide({ kind: 'add_note', incidentId, time: now(), content }, state).map((e) => toCloudEvent(e, context)),
    );
    return appended[0];
  }

  private async run(
    incidentId: string,
    context: CommandContext,
    decideEvents: (state: Parameters<typeof decide>[1]) => ReturnType<typeof decide>,
  ): Promise<Incident> {
    const { state } = await this.writer.write(incidentId, (current) =>
      decideEvents(current).map((event) => toCloudEvent(event, context)),
    );
    return state as Incident;
  }
}
