import type { LedgerEvent } from './incident-events';
import type { Transition } from './lifecycle';
import type { Caller } from './responder-rules';

export type DeclareIncident = {
  kind: 'declare';
  incidentId: string;
  time: string;
  title: unknown;
  severity: unknown;
  description?: unknown;
  services?: unknown;
  labels?: unknown;
  /** The declaring responder, who becomes incident commander. */
  commander?: string;
};

export type AssignRole = {
  kind: 'assign_role';
  incidentId: string;
  time: string;
  role: unknown;
  userId: unknown;
  /** Who asks: see roleAssignmentRefusal. */
  caller: Caller;
};

export type AddNote = {
  kind: 'add_note';
  incidentId: string;
  time: string;
  content: unknown;
};

export type ChangeSeverity = {
  kind: 'change_severity';
  incidentId: string;
  time: string;
  severity: unknown;
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
  /** Routed by its fingerprint to an unresolved incident: it may join it only while it stays so (RouteChangedError). */
  whileUnresolved?: boolean;
};

export type IncidentCommand = DeclareIncident | TransitionIncident | AssignRole | AddNote | ChangeSeverity;
