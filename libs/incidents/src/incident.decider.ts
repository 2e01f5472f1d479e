import {
  DESCRIPTION_MAX_LENGTH,
  type Incident,
  type IncidentState,
  isRaciRole,
  isSeverity,
  RACI_ROLES,
  type RaciRole,
  type Severity,
  SEVERITIES,
  type Status,
  TITLE_MAX_LENGTH,
} from './incident';
import type {
  AddNote,
  AssignRole,
  ChangeSeverity,
  DeclareIncident,
  EscalateIncident,
  IncidentCommand,
  MarkDuplicate,
  PageIncident,
  RecordEvent,
  TransitionIncident,
} from './incident-commands';
import type { Decider } from './decider';
import {
  ALERT_RESOLVE_TYPE,
  ALERT_TRIGGER_TYPE,
  DEFAULT_ALERT_SEVERITY,
  DUPLICATE_EVENT_TYPE,
  INCIDENT_EVENT_TYPES,
  NOTE_EVENT_TYPE,
  PAGING_EVENT_TYPES,
  ROLE_ASSIGNED_TYPE,
  SERVICE_ASSIGNED_TYPE,
  SEVERITY_CHANGED_TYPE,
  type IncidentEvent,
  type LedgerEvent,
  transitionOf,
} from './incident-events';
import { ConflictError, incidentNotFound, InvalidError, shortened } from './domain-errors';
import { LIFECYCLE, REFUSED, UNCHANGED } from './lifecycle';
import { evolveEscalation, manualEscalationRefusal, nextStep, pageData, pagingDue, type StepRound } from './oncall/escalation';
import type { ServiceAssignment } from './oncall/service-assignment';
import { noteRefusal, roleAssignmentRefusal, severityChangeRefusal } from './responder-rules';
import { incidentStreamId } from './stream-names';

export const initialState: IncidentState = undefined;

/**
 * Decides which events a command produces against the current state; throws a
 * DomainError when it cannot. Every kind is named: a new command does not
 * compile until it is decided here.
 */
export function decide(command: IncidentCommand, state: IncidentState): IncidentEvent[] {
  switch (command.kind) {
    case 'declare':
      return decideDeclare(command, state);
    case 'assign_role':
      return decideAssignRole(command, state);
    case 'add_note':
      return decideAddNote(command, state);
    case 'change_severity':
      return decideChangeSeverity(command, state);
    case 'ack':
    case 'mitigate':
    case 'resolve':
    case 'close':
    case 'cancel':
      return decideTransition(command, state);
    case 'duplicate':
      return decideDuplicate(command, state);
    case 'page':
      return decidePage(command, state);
    case 'escalate':
      return decideEscalate(command, state);
    default: {
      const unhandled: never = command;
      // Only a caller that bypassed the types gets here (e.g. a kind read from input).
      throw new InvalidError(`Unknown command ${String((unhandled as { kind?: unknown }).kind)}`);
    }
  }
}

export const MAX_SERVICES = 50;
export const MAX_LABELS = 50;
export const NOTE_MAX_LENGTH = 10_000;
const SHORT_TEXT_MAX = 200;

function validServices(services: unknown): string[] | undefined {
  if (services === undefined || services === null) return undefined;
  if (
    !Array.isArray(services) ||
    services.length > MAX_SERVICES ||
    !services.every((s) => typeof s === 'string' && s.trim() !== '' && s.length <= SHORT_TEXT_MAX)
  ) {
    throw new InvalidError(`services must be a list of at most ${MAX_SERVICES} non-empty names`);
  }
  return services.map((s: string) => s.trim());
}

/**
 * `service`, the seed's data key: one name (an alert's, from its labels),
 * kept as the incident's list of one. Alert events stored before it was used
 * carry `services: [name]`, which validServices reads as before.
 */
function validService(service: unknown): string[] | undefined {
  if (service === undefined || service === null) return undefined;
  if (typeof service !== 'string' || service.trim() === '' || service.length > SHORT_TEXT_MAX) {
    throw new InvalidError(`service must be a non-empty name of at most ${SHORT_TEXT_MAX} characters`);
  }
  return [service.trim()];
}

/** Labels are flat key → text pairs, like Kubernetes labels. */
function validLabels(labels: unknown): Record<string, string> | undefined {
  if (labels === undefined || labels === null) return undefined;
  const problem = labelsProblem(labels);
  if (problem) {
    throw new InvalidError(`labels must be an object of at most ${MAX_LABELS} text values, names of 1 to ${SHORT_TEXT_MAX} characters and values of at most ${SHORT_TEXT_MAX}: ${problem}`);
  }
  return { ...(labels as Record<string, string>) };
}

const shortName = (name: string) => JSON.stringify(shortened(name));

/** What is wrong with the labels, in the words a sender can act on (an alert's labels arrive unchecked). */
function labelsProblem(labels: unknown): string | undefined {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return 'they are not an object';
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) return `there are ${entries.length}`;
  for (const [name, value] of entries) {
    if (name === '' || name.length > SHORT_TEXT_MAX) return `the name ${shortName(name)} has ${name.length} characters`;
    if (typeof value !== 'string') return `${shortName(name)} is not text`;
    if (value.length > SHORT_TEXT_MAX) return `${shortName(name)} has ${value.length} characters`;
  }
  return undefined;
}

function validTitle(title: unknown): string {
  if (typeof title !== 'string' || title.trim() === '') {
    throw new InvalidError('title is required and must be a non-empty string');
  }
  if (title.length > TITLE_MAX_LENGTH) {
    throw new InvalidError(`title must be at most ${TITLE_MAX_LENGTH} characters`);
  }
  return title.trim();
}

function validSeverity(severity: unknown): Severity {
  if (!isSeverity(severity)) throw new InvalidError(`severity must be one of ${SEVERITIES.join(', ')}`);
  return severity;
}

/**
 * The optional fields an incident is opened with, checked the same way
 * whichever path opens it (REST, GraphQL, a timeline declare, an alert).
 */
function validDetails(fields: { description?: unknown; services?: unknown; service?: unknown; labels?: unknown }) {
  const { description } = fields;
  if (description !== undefined && typeof description !== 'string') {
    throw new InvalidError('description must be a string');
  }
  if (description !== undefined && description.length > DESCRIPTION_MAX_LENGTH) {
    throw new InvalidError(`description must be at most ${DESCRIPTION_MAX_LENGTH} characters`);
  }
  // A list, when given, is the incident's services. A `service` that is not a name is kept in the
  // event's data but names no service: events with any data.service were accepted before it was read.
  const service = unlessInvalid(validService, fields.service);
  return { description, services: validServices(fields.services) ?? service, labels: validLabels(fields.labels) };
}

function decideDeclare(command: DeclareIncident, state: IncidentState): IncidentEvent[] {
  if (state) throw new ConflictError(`Incident ${command.incidentId} already exists`);
  const title = validTitle(command.title);
  const severity = validSeverity(command.severity);
  const { description, services, labels } = validDetails(command);
  const { incidentId, time, commander, service } = command;
  const declared: IncidentEvent = {
    type: INCIDENT_EVENT_TYPES.declare,
    incidentId,
    time,
    data: {
      title,
      severity,
      ...(description !== undefined ? { description } : {}),
      ...(services ? { services } : {}),
      ...(labels ? { labels } : {}),
    },
  };
  const opening = [declared, ...serviceAssigned(incidentId, time, service)];
  if (commander === undefined) return opening;
  return [...opening, { type: ROLE_ASSIGNED_TYPE, incidentId, time, data: { role: 'IC', user_id: commander } }];
}

/** The service an incident belongs to, recorded in the same append as its opening event (the service is fixed then). */
function serviceAssigned(incidentId: string, time: string, service: ServiceAssignment | undefined): IncidentEvent[] {
  if (!service) return [];
  return [{ type: SERVICE_ASSIGNED_TYPE, incidentId, time, data: { service_id: service.service_id, escalation_policy_id: service.escalation_policy_id } }];
}

function decideAssignRole(command: AssignRole, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  if (!isRaciRole(command.role)) throw new InvalidError(`role must be one of ${RACI_ROLES.join(', ')}`);
  const { userId } = command;
  if (typeof userId !== 'string' || userId.trim() === '' || userId.length > SHORT_TEXT_MAX) {
    throw new InvalidError('userId must be a non-empty string');
  }
  const refusal = roleAssignmentRefusal(state, command.caller);
  if (refusal) throw refusal;
  if (state.roles?.[command.role] === userId) return [];
  return [{ type: ROLE_ASSIGNED_TYPE, incidentId: state.id, time: command.time, data: { role: command.role, user_id: userId } }];
}

function decideAddNote(command: AddNote, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const refusal = noteRefusal(state);
  if (refusal) throw refusal;
  const { content } = command;
  if (typeof content !== 'string' || content.trim() === '') throw new InvalidError('content must be a non-empty string');
  if (content.length > NOTE_MAX_LENGTH) throw new InvalidError(`content must be at most ${NOTE_MAX_LENGTH} characters`);
  return [{ type: NOTE_EVENT_TYPE, incidentId: state.id, time: command.time, data: { content } }];
}

function decideChangeSeverity(command: ChangeSeverity, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const severity = validSeverity(command.severity);
  const refusal = severityChangeRefusal(state);
  if (refusal) throw refusal;
  if (state.severity === severity) return [];
  return [{ type: SEVERITY_CHANGED_TYPE, incidentId: state.id, time: command.time, data: { severity } }];
}

function decideTransition(command: TransitionIncident, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const outcome = LIFECYCLE[state.status][command.kind];
  if (outcome === REFUSED) throw refused(command.kind, state);
  if (outcome === UNCHANGED) return [];
  return [
    { type: INCIDENT_EVENT_TYPES[command.kind], incidentId: state.id, time: command.time, data: {} },
  ];
}

/**
 * `of` must be an incident the caller may see (else 404), not this one, and
 * itself stand for an incident (neither canceled nor a duplicate: 409). The
 * same `of` again changes nothing; another is 409.
 */
function decideDuplicate(command: MarkDuplicate, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const { of, ofState } = command;
  if (typeof of !== 'string' || of === '') throw new InvalidError('of must be the id of the incident this one duplicates');
  if (of === state.id) throw new ConflictError(`Incident ${state.id} cannot be a duplicate of itself`);
  const outcome = LIFECYCLE[state.status].duplicate;
  if (outcome === REFUSED) throw refused('mark as duplicate', state);
  if (!ofState) throw incidentNotFound(of);
  if (ofState.status === 'canceled' || ofState.status === 'duplicate') {
    throw new ConflictError(`Cannot mark incident ${state.id} a duplicate of ${of}: it is ${ofState.status}`);
  }
  if (outcome === UNCHANGED) {
    if (state.duplicateOf === of) return [];
    throw new ConflictError(`Incident ${state.id} is already a duplicate of ${state.duplicateOf}`);
  }
  return [{ type: DUPLICATE_EVENT_TYPE, incidentId: state.id, time: command.time, data: { of } }];
}

/** The escalation an incident pages by: none without a service, or when its service had no policy. */
const paging = (state: Incident) => (state.escalation?.policyId ? state.escalation : undefined);

/** The page of `next`, to the targets resolved for its step. */
const pageEvent = (incidentId: string, time: string, next: StepRound, targets: PageIncident['targets']): IncidentEvent => ({
  type: PAGING_EVENT_TYPES.page,
  incidentId,
  time,
  data: pageData(next, targets[next.step - 1]),
});

/** Step 1 of round 1 while the incident is open and was never paged; anything else is no page (the command may come again). */
function decidePage(command: PageIncident, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const escalation = paging(state);
  if (state.status !== 'open' || !escalation || escalation.step !== 0) return [];
  const first = nextStep(command.policy, escalation);
  return first ? [pageEvent(state.id, command.time, first, command.targets)] : [];
}

/**
 * The next page. A timer's escalation pages only while the incident is open,
 * at or after the step it saw fell due, and only if that step is still the
 * current one: a timer that fires twice, late or early pages once. After the last step
 * of the last round it records exhaustion instead. A responder's (manual)
 * escalation pages at once while the incident is open or acknowledged (it
 * stays so), and is refused when nothing is left.
 */
function decideEscalate(command: EscalateIncident, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const { policy, time } = command;
  if (command.reason === 'manual') {
    const refusal = manualEscalationRefusal(state, policy);
    if (refusal) throw refusal;
  }
  const escalation = paging(state);
  if (!escalation) return [];
  if (command.reason === 'timeout') {
    const due = pagingDue(state, policy);
    const { seen } = command;
    if (due?.kind !== 'escalate' || due.seen.step !== seen.step || due.seen.round !== seen.round || Date.parse(time) < Date.parse(due.at)) return [];
  }
  const next = nextStep(policy, escalation);
  if (!next) return [{ type: PAGING_EVENT_TYPES.exhausted, incidentId: state.id, time, data: { rounds: escalation.round } }];
  return [
    { type: PAGING_EVENT_TYPES.escalate, incidentId: state.id, time, data: { from_step: escalation.step, to_step: next.step, reason: command.reason } },
    pageEvent(state.id, time, next, command.targets),
  ];
}

/** Recorded only by the service's own commands: each needs facts a timeline event cannot vouch for (`of`'s state, the service, the policy). */
const SERVICE_RECORDED_TYPES: ReadonlySet<string> = new Set([DUPLICATE_EVENT_TYPE, SERVICE_ASSIGNED_TYPE, PAGING_EVENT_TYPES.page, PAGING_EVENT_TYPES.exhausted]);

/**
 * A timeline event is stored as it came when it fits the state: a declare
 * or an alert may open the incident, a lifecycle type must be a move the table
 * allows (a repeat is stored and changes nothing), anything else needs the
 * incident to exist.
 */
export function decideRecord({ incidentId, event, whileUnresolved, service }: RecordEvent, state: IncidentState): (LedgerEvent | IncidentEvent)[] {
  if (whileUnresolved && !unresolved(state)) throw new RouteChangedError(`Incident ${incidentId} changed while the event was routed to it`);
  const data = event.data ?? {};
  // Role changes carry an authorization rule (the commander decides): only assignRole records them.
  if (event.type === ROLE_ASSIGNED_TYPE) throw new InvalidError(`${ROLE_ASSIGNED_TYPE} is recorded by the assignRole mutation only`);
  if (SERVICE_RECORDED_TYPES.has(event.type)) throw new InvalidError(`${event.type} is recorded by the service only`);
  if (event.type === INCIDENT_EVENT_TYPES.declare) {
    if (state) throw new ConflictError(`Incident ${incidentId} already exists`);
    validTitle(data.title);
    validSeverity(data.severity);
    validDetails(data);
    return [event, ...serviceAssigned(incidentId, event.time, service)];
  }
  if (event.type === ALERT_TRIGGER_TYPE && !state) {
    if (data.title !== undefined) validTitle(data.title);
    if (data.severity !== undefined) validSeverity(data.severity);
    validDetails(data);
    return [event, ...serviceAssigned(incidentId, event.time, service)];
  }
  if (!state) throw incidentNotFound(incidentId);
  // A note is a note whichever way it arrives: the addNote mutation's rule holds for a recorded one too; so for a severity change.
  if (event.type === SEVERITY_CHANGED_TYPE) validSeverity(data.severity);
  const refusal = event.type === NOTE_EVENT_TYPE ? noteRefusal(state) : event.type === SEVERITY_CHANGED_TYPE ? severityChangeRefusal(state) : undefined;
  if (refusal) throw refusal;
  const transition = transitionOf(event.type);
  if (transition && LIFECYCLE[state.status][transition] === REFUSED) throw refused(transition, state);
  return [event];
}

const refused = (move: string, state: Incident) =>
  new ConflictError(`Cannot ${move} incident ${state.id}: it is ${state.status}`);

/** Title of an incident an alert opened without naming one. */
const alertTitle = (event: LedgerEvent) => (event.fingerprint ? `Alert ${event.fingerprint}` : 'Alert');

function opened(event: LedgerEvent, title: string, severity: Severity, data: Record<string, unknown>): Incident {
  const incident: Incident = {
    id: event.incidentId,
    title,
    severity,
    status: 'open',
    createdAt: event.time,
    updatedAt: event.time,
  };
  if (typeof data.description === 'string') incident.description = data.description;
  const services = unlessInvalid(validServices, data.services) ?? unlessInvalid(validService, data.service);
  if (services) incident.services = services;
  const labels = unlessInvalid(validLabels, data.labels);
  if (labels) incident.labels = labels;
  if (event.visibility !== undefined) incident.visibility = event.visibility;
  return incident;
}

/** A field the checks would refuse (stored before they ran on every path) is left out, not shown broken. */
function unlessInvalid<T>(check: (value: unknown) => T, value: unknown): T | undefined {
  try {
    return check(value);
  } catch {
    return undefined;
  }
}

/**
 * Still being worked on (open, acknowledged or mitigated): an alert of its
 * fingerprint joins it. An incident that was claimed but never written counts
 * as open. A canceled one is over as a resolved one is; a duplicate's alerts
 * go to the incident it duplicates (routeEvent's caller follows the link).
 */
export const UNRESOLVED_STATUSES: readonly Status[] = ['open', 'acknowledged', 'mitigated'];
export const unresolved = (state: IncidentState) => !state || UNRESOLVED_STATUSES.includes(state.status);

/** The incident an event was routed to changed before the event was stored there: route it again. */
export class RouteChangedError extends ConflictError {}

/**
 * Folds one event into the state: the fold the write side decides on and the
 * incident read model shows. Events it does not know (notes, alerts on an
 * open incident, …) leave the incident as it is, so the same fold serves
 * every stream reader.
 */
export function evolve(state: IncidentState, event: IncidentEvent | LedgerEvent): IncidentState {
  const incident = withFiringAlerts(evolveLifecycle(state, event), event);
  return incident && evolveEscalation(incident, event);
}

/**
 * Which of the incident's alerts fire now: an alert is one fingerprint, so a
 * repeated trigger counts once, a resolve removes it, and a later trigger of
 * the same fingerprint (a re-fire) counts it again.
 */
function withFiringAlerts(incident: IncidentState, event: IncidentEvent | LedgerEvent): IncidentState {
  const fingerprint = 'fingerprint' in event ? event.fingerprint : undefined;
  if (!incident || fingerprint === undefined || (event.type !== ALERT_TRIGGER_TYPE && event.type !== ALERT_RESOLVE_TYPE)) return incident;
  const others = (incident.firingAlerts ?? []).filter((firing) => firing !== fingerprint);
  const firingAlerts = event.type === ALERT_TRIGGER_TYPE ? [...others, fingerprint] : others;
  const next: Incident = { ...incident, firingAlerts };
  // Absent rather than empty, as for an incident that never had an alert.
  if (firingAlerts.length === 0) delete next.firingAlerts;
  return next;
}

function evolveLifecycle(state: IncidentState, event: IncidentEvent | LedgerEvent): IncidentState {
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (!state) {
    if (event.type === INCIDENT_EVENT_TYPES.declare) {
      return opened(event, (data.title as string).trim(), data.severity as Severity, data);
    }
    if (event.type === ALERT_TRIGGER_TYPE) {
      const title = typeof data.title === 'string' ? data.title.trim() : alertTitle(event);
      const severity = isSeverity(data.severity) ? data.severity : DEFAULT_ALERT_SEVERITY;
      return opened(event, title, severity, data);
    }
    return state;
  }
  if (event.type === ROLE_ASSIGNED_TYPE && isRaciRole(data.role) && typeof data.user_id === 'string') {
    return { ...state, roles: { ...state.roles, [data.role]: data.user_id }, updatedAt: event.time };
  }
  if (event.type === SEVERITY_CHANGED_TYPE && isSeverity(data.severity)) {
    return data.severity === state.severity ? state : { ...state, severity: data.severity, updatedAt: event.time };
  }
  if (event.type === DUPLICATE_EVENT_TYPE && typeof data.of === 'string') {
    return LIFECYCLE[state.status].duplicate === 'duplicate' ? { ...state, status: 'duplicate', duplicateOf: data.of, updatedAt: event.time } : state;
  }
  const transition = transitionOf(event.type);
  if (!transition) return state;
  const outcome = LIFECYCLE[state.status][transition];
  if (outcome === REFUSED || outcome === UNCHANGED) return state;
  return { ...state, status: outcome, updatedAt: event.time };
}

/** An incident's stream: the commands of responders, and the events recorded through the timeline. */
export const incidentDecider: Decider<IncidentCommand | RecordEvent, IncidentState, IncidentEvent | LedgerEvent> = {
  stream: { subject: 'incident', streamId: incidentStreamId },
  initialState,
  decide: (command, state) => (command.kind === 'record' ? decideRecord(command, state) : decide(command, state)),
  evolve,
};

