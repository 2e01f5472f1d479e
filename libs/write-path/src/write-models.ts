import { toLedgerEvent } from '@im/cloudevents';
import type { RecordedEvent } from '@im/event-store';
import {
  type Decider,
  fingerprintDecider,
  heartbeatPingDecider,
  incidentDecider,
  integrationKeyDecider,
  oncallDecider,
  webhookDecider,
  type IncidentCommand,
  type IncidentEvent,
  incidentIdOfStream,
  type IncidentState,
  type LedgerEvent,
  type RecordEvent,
  type StreamEvent,
  userStreamDecider,
} from '@im/incidents';

/** A domain decider as the write path runs it: how it reads a recorded event. */
export interface WriteModel<Command, State, Event> {
  readonly decider: Decider<Command, State, Event>;
  read(recorded: RecordedEvent): Event;
}

/** A decider whose events are stored as decided, in the service's envelope (serviceEvent): its fold reads their type and data. */
export const serviceStream = <Command, State>(decider: Decider<Command, State, StreamEvent>): WriteModel<Command, State, StreamEvent> => ({
  decider,
  read: ({ event }) => event,
});

/** An incident's stream, folded as the incident read model folds it (times are when the ledger recorded each change). */
export const incidentWrites: WriteModel<IncidentCommand | RecordEvent, IncidentState, IncidentEvent | LedgerEvent> = {
  decider: incidentDecider,
  read: ({ event, streamId, recordedAt }) => toLedgerEvent(event, incidentIdOfStream(streamId), recordedAt),
};

export const fingerprintWrites = serviceStream(fingerprintDecider);
export const webhookWrites = serviceStream(webhookDecider);
export const integrationKeyWrites = serviceStream(integrationKeyDecider);
/** A responder's stream: preferences and push subscriptions, decided by its one Decider. */
export const userStreamWrites = serviceStream(userStreamDecider);
/** The on-call configuration: services, escalation policies, schedules and overrides, decided by its one Decider. */
export const oncallWrites = serviceStream(oncallDecider);
/** A heartbeat's pings. */
export const heartbeatPingWrites = serviceStream(heartbeatPingDecider);
