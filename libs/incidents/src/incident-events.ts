import type { RaciRole, Severity } from './incident';
import type { Transition } from './lifecycle';

/** Event type strings are a public contract: never rename them. */
export const INCIDENT_EVENT_TYPES = {
  declare: 'im.incident.declare',
  ack: 'im.incident.ack',
  mitigate: 'im.incident.mitigate',
  resolve: 'im.incident.resolve',
  close: 'im.incident.close',
  cancel: 'im.incident.cancel',
} as const;

/** The incident duplicates `data.of` (status `duplicate`). */
export const DUPLICATE_EVENT_TYPE = 'im.incident.duplicate';
/** The incident belongs to `data.service_id`, paged by `data.escalation_policy_id` (or by none), recorded as it opens. */
export const SERVICE_ASSIGNED_TYPE = 'im.incident.service_assigned';
/** Paging of an incident (docs/api.md, "Paging"): written by the service, actor system:escalation. */
export const PAGING_EVENT_TYPES = {
  page: 'im.paging.page',
  escalate: 'im.paging.escalate',
  exhausted: 'im.paging.exhausted',
} as const;

export const NOTE_EVENT_TYPE = 'im.incident.note';
export const ROLE_ASSIGNED_TYPE = 'im.incident.role_assigned';
/** The incident's severity is now `data.severity`. */
export const SEVERITY_CHANGED_TYPE = 'im.incident.severity';
export const ALERT_TRIGGER_TYPE = 'im.alert.trigger';
export const ALERT_RESOLVE_TYPE = 'im.alert.resolve';

/** Severity of an incident opened by an alert that names none. */
export const DEFAULT_ALERT_SEVERITY = 'SEV-3';

export type IncidentDeclared = {
  type: typeof INCIDENT_EVENT_TYPES.declare;
  incidentId: string;
  time: string;
  data: { title: string; severity: Severity; description?: string; services?: string[]; labels?: Record<string, string> };
};

export type RoleAssigned = {
  type: typeof ROLE_ASSIGNED_TYPE;
  incidentId: string;
  time: string;
  data: { role: RaciRole; user_id: string };
};

export type SeverityChanged = {
  type: typeof SEVERITY_CHANGED_TYPE;
  incidentId: string;
  time: string;
  data: { severity: Severity };
};

export type NoteAdded = {
  type: typeof NOTE_EVENT_TYPE;
  incidentId: string;
  time: string;
  data: { content: string };
};

export type IncidentTransitioned = {
  type: (typeof INCIDENT_EVENT_TYPES)[Transition];
  incidentId: string;
  time: string;
  data: Record<string, never>;
};

export type IncidentDuplicated = {
  type: typeof DUPLICATE_EVENT_TYPE;
  incidentId: string;
  time: string;
  data: { of: string };
};

/** One user paged, and why: `user` (a user target) or `schedule:<id>` (on call there). */
export interface PagedUser {
  user: string;
  via: string;
}

export type Paged = {
  type: typeof PAGING_EVENT_TYPES.page;
  incidentId: string;
  time: string;
  /** `unstaffed`: the schedule targets with no one on call. */
  data: { step: number; round: number; paged: PagedUser[]; unstaffed: string[] };
};

export type Escalated = {
  type: typeof PAGING_EVENT_TYPES.escalate;
  incidentId: string;
  time: string;
  data: { from_step: number; to_step: number; reason: 'timeout' | 'manual' };
};

export type EscalationExhausted = {
  type: typeof PAGING_EVENT_TYPES.exhausted;
  incidentId: string;
  time: string;
  data: { rounds: number };
};

export type PagingEvent = Paged | Escalated | EscalationExhausted;

/** The service an incident belongs to, recorded with its opening event (escalation_policy_id: the service's policy then, or none). */
export type ServiceAssigned = {
  type: typeof SERVICE_ASSIGNED_TYPE;
  incidentId: string;
  time: string;
  data: { service_id: string; escalation_policy_id: string | null };
};

/** Who records an incident's service (im.actor of im.incident.service_assigned). */
export const SERVICE_ASSIGNMENT_ACTOR = 'system:oncall';
/** Who records paging (im.actor of im.paging.*), whether a timer fell due or a responder asked. */
export const ESCALATION_ACTOR = 'system:escalation';

export type IncidentEvent = IncidentDeclared | IncidentTransitioned | RoleAssigned | NoteAdded | SeverityChanged | IncidentDuplicated | PagingEvent | ServiceAssigned;

/** Any event of an incident's stream, including types the lifecycle ignores (notes, alerts). */
export type LedgerEvent = {
  type: string;
  incidentId: string;
  time: string;
  data?: Record<string, unknown>;
  /** im.fingerprint, which names an incident an alert opens when it has no title. */
  fingerprint?: string;
  /** im.visibility: on the event that opens an incident, the incident's own visibility. */
  visibility?: string;
};

const TRANSITION_BY_TYPE = new Map<string, Transition>(
  (Object.keys(INCIDENT_EVENT_TYPES) as (keyof typeof INCIDENT_EVENT_TYPES)[])
    .filter((key): key is Transition => key !== 'declare')
    .map((key) => [INCIDENT_EVENT_TYPES[key], key]),
);

/** The lifecycle move an event type stands for, if it is one. */
export const transitionOf = (eventType: string): Transition | undefined =>
  TRANSITION_BY_TYPE.get(eventType);
