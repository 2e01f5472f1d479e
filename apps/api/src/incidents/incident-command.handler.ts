import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { toCloudEvent, toLedgerEvent } from '@im/cloudevents';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '@im/event-store';
import {
  ConflictError,
  decide,
  evolve,
  type Incident,
  type IncidentCommand,
  type IncidentState,
  initialState,
  type Transition,
} from '@im/incidents';
import { incidentStreamId, ProjectionRunner } from '@im/read-models';

const MAX_ATTEMPTS = 20;

export interface CommandContext {
  actor: string;
}

export interface CommandOutcome {
  /** State after the command, as the write side decided it. */
  state: Incident;
  /** False when the command was a "no change" repeat. */
  appended: boolean;
}

export const newIncidentId = () => `INC-${randomBytes(4).toString('hex')}`;

/**
 * Read the stream → decide → append with the expected revision; on a
 * conflict, decide again on fresh state. Answers once the read models show
 * the change, so the caller can read its own write.
 */
@Injectable()
export class IncidentCommandHandler {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async declare(
    input: { title: unknown; severity: unknown; description?: unknown },
    context: CommandContext,
  ): Promise<CommandOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.execute({ kind: 'declare', incidentId: newIncidentId(), time: now(), ...input }, context);
      } catch (error) {
        // A random id that is already taken: draw another.
        if (!(error instanceof ConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  transition(incidentId: string, kind: Transition, context: CommandContext): Promise<CommandOutcome> {
    return this.execute({ kind, incidentId, time: now() }, context);
  }

  private async execute(command: IncidentCommand, context: CommandContext): Promise<CommandOutcome> {
    const streamId = incidentStreamId(command.incidentId);
    for (let attempt = 1; ; attempt++) {
      const stream = await this.eventStore.readStream(streamId);
      const state = stream.reduce<IncidentState>(
        (current, recorded) => evolve(current, toLedgerEvent(recorded.event, command.incidentId)),
        initialState,
      );
      const events = decide({ ...command, time: now() }, state);
      if (events.length === 0) {
        // "No change" because of an event someone else appended: answer once the views show it too.
        await this.projections.waitFor(stream[stream.length - 1].position, this.config.projectionWaitMs);
        return { state: state as Incident, appended: false };
      }
      const expected = stream.length === 0 ? 'no_stream' : stream[stream.length - 1].revision;
      try {
        const result = await this.eventStore.append(
          streamId,
          events.map((event) => toCloudEvent(event, { actor: context.actor })),
          expected,
        );
        await this.projections.waitFor(result.position, this.config.projectionWaitMs);
        return { state: events.reduce(evolve, state) as Incident, appended: true };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}

const now = () => new Date().toISOString();
