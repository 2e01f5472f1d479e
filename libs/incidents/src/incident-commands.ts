import type { LedgerEvent } from './incident-events';
import type { Transition } from './lifecycle';

export type DeclareIncident = {
  kind: 'declare';
  incidentId: string;
  time: string;
  title: unknown;
  severity: unknown;
  description?: unknown;
};

export type TransitionIncident = {
  kind: Transition;
  incidentId: string;
  time: string;
};

/** Record an event pushed to the timeline: it must fit the incident's state. */
export type RecordEvent = {
  kind: 'record';
  incidentId: string;
  event: LedgerEvent;
};

export type IncidentCommand = DeclareIncident | TransitionIncident;
