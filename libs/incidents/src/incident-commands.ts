import type { IncidentState } from './incident';
import type { LedgerEvent } from './incident-events';
import type { Transition } from './lifecycle';
import type { EscalationPolicyShape, StepRound, StepTargets } from './oncall/escalation';
import type { ServiceAssignment } from './oncall/service-assignment';
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
  /** The service the incident belongs to (assignedService), recorded with the declaration. */
  service?: ServiceAssignment;
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

/** Mark the incident a duplicate of `of`; the handler reads `of`'s state, as the caller may see it (undefined: missing or withheld). */
export type MarkDuplicate = {
  kind: 'duplicate';
  incidentId: string;
  time: string;
  of: unknown;
  ofState: IncidentState;
};

/**
 * What paging decides with, resolved by the caller so the decision stays pure:
 * the incident's policy (the one its escalation state names) and, per step,
 * its targets as of now (`targets[i]` for step i + 1).
 */
export interface PagingPlan {
  policy: EscalationPolicyShape;
  targets: readonly StepTargets[];
}

/** The first page, as the incident opens: step 1 of round 1, once. */
export type PageIncident = PagingPlan & {
  kind: 'page';
  incidentId: string;
  time: string;
};

/** Page the next step: a timer that saw `seen` fell due, or a responder asked. */
export type EscalateIncident = PagingPlan & {
  kind: 'escalate';
  incidentId: string;
  time: string;
} & ({ reason: 'timeout'; seen: StepRound } | { reason: 'manual' });

/** Record an event pushed to the timeline: it must fit the incident's state. */
export type RecordEvent = {
  kind: 'record';
  incidentId: string;
  event: LedgerEvent;
  /** Routed by its fingerprint to an unresolved incident: it may join it only while it stays so (RouteChangedError). */
  whileUnresolved?: boolean;
  /** Should the event open the incident: the service it belongs to (assignedService), recorded with it. */
  service?: ServiceAssignment;
};

export type IncidentCommand = DeclareIncident | TransitionIncident | AssignRole | AddNote | ChangeSeverity | MarkDuplicate | PageIncident | EscalateIncident;
