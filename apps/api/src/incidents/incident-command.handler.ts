import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { toCloudEvent } from '@im/cloudevents';
import { ConflictError, decide, type Incident, type Transition } from '@im/incidents';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';

const MAX_ID_DRAWS = 20;

export interface CommandContext {
  actor: string;
}

export const newIncidentId = () => `INC-${randomBytes(4).toString('hex')}`;

const now = () => new Date().toISOString();

/** REST (and GraphQL) incident commands, decided by the domain and written to the incident's stream. */
@Injectable()
export class IncidentCommandHandler {
  constructor(private readonly writer: IncidentStreamWriter) {}

  async declare(
    input: { title: unknown; severity: unknown; description?: unknown },
    context: CommandContext,
  ): Promise<Incident> {
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

  private async run(
    incidentId: string,
    context: CommandContext,
    decideEvents: (state: Parameters<typeof decide>[1]) => ReturnType<typeof decide>,
  ): Promise<Incident> {
    const { state } = await this.writer.write(incidentId, (current) =>
      decideEvents(current).map((event) => toCloudEvent(event, { actor: context.actor })),
    );
    return state as Incident;
  }
}
