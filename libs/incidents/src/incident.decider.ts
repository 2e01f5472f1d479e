import {
  DESCRIPTION_MAX_LENGTH,
  type Incident,
  type IncidentState,
  isSeverity,
  type Severity,
  SEVERITIES,
  TITLE_MAX_LENGTH,
} from './incident';
import type { DeclareIncident, IncidentCommand, RecordEvent, TransitionIncident } from './incident-commands';
import {
  ALERT_TRIGGER_TYPE,
  DEFAULT_ALERT_SEVERITY,
  INCIDENT_EVENT_TYPES,
  type IncidentEvent,
  type LedgerEvent,
  transitionOf,
} from './incident-events';
import { ConflictError, incidentNotFound, InvalidError } from './domain-errors';
import { LIFECYCLE, REFUSED, UNCHANGED } from './lifecycle';

export const initialState: IncidentState = undefined;

/** Decides which events a command produces against the current state; throws a DomainError when it cannot. */
export function decide(command: IncidentCommand, state: IncidentState): IncidentEvent[] {
  return command.kind === 'declare' ? decideDeclare(command, state) : decideTransition(command, state);
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

function decideDeclare(command: DeclareIncident, state: IncidentState): IncidentEvent[] {
  if (state) throw new ConflictError(`Incident ${command.incidentId} already exists`);
  const { description } = command;
  const title = validTitle(command.title);
  const severity = validSeverity(command.severity);
  if (description !== undefined && typeof description !== 'string') {
    throw new InvalidError('description must be a string');
  }
  if (description !== undefined && description.length > DESCRIPTION_MAX_LENGTH) {
    throw new InvalidError(`description must be at most ${DESCRIPTION_MAX_LENGTH} characters`);
  }
  return [
    {
      type: INCIDENT_EVENT_TYPES.declare,
      incidentId: command.incidentId,
      time: command.time,
      data: { title, severity, ...(description !== undefined ? { description } : {}) },
    },
  ];
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
 * A timeline event is stored as it came when it fits the state: a declare
 * or an alert may open the incident, a lifecycle type must be a move the table
 * allows (a repeat is stored and changes nothing), anything else needs the
 * incident to exist.
 */
export function decideRecord({ incidentId, event }: RecordEvent, state: IncidentState): LedgerEvent[] {
  const data = event.data ?? {};
  if (event.type === INCIDENT_EVENT_TYPES.declare) {
    if (state) throw new ConflictError(`Incident ${incidentId} already exists`);
    validTitle(data.title);
    validSeverity(data.severity);
    return [event];
  }
  if (event.type === ALERT_TRIGGER_TYPE && !state) {
    if (data.title !== undefined) validTitle(data.title);
    if (data.severity !== undefined) validSeverity(data.severity);
    return [event];
  }
  if (!state) throw incidentNotFound(incidentId);
  const transition = transitionOf(event.type);
  if (transition && LIFECYCLE[state.status][transition] === REFUSED) throw refused(transition, state);
  return [event];
}

const refused = (move: string, state: Incident) =>
  new ConflictError(`Cannot ${move} incident ${state.id}: it is ${state.status}`);

/** Title of an incident an alert opened without naming one. */
const alertTitle = (event: LedgerEvent) => (event.fingerprint ? `Alert ${event.fingerprint}` : 'Alert');

function opened(event: LedgerEvent, title: string, severity: Severity, description?: unknown): Incident {
  const incident: Incident = {
    id: event.incidentId,
    title,
    severity,
    status: 'open',
    createdAt: event.time,
    updatedAt: event.time,
  };
  if (typeof description === 'string') incident.description = description;
  return incident;
}

/**
 * Folds one event into the state. Events it does not know (notes, alerts on
 * an open incident, …) leave the incident as it is, so the same fold serves
 * every stream reader.
 */
export function evolve(state: IncidentState, event: IncidentEvent | LedgerEvent): IncidentState {
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (!state) {
    if (event.type === INCIDENT_EVENT_TYPES.declare) {
      return opened(event, (data.title as string).trim(), data.severity as Severity, data.description);
    }
    if (event.type === ALERT_TRIGGER_TYPE) {
      const title = typeof data.title === 'string' ? data.title.trim() : alertTitle(event);
      const severity = isSeverity(data.severity) ? data.severity : DEFAULT_ALERT_SEVERITY;
      return opened(event, title, severity, data.description);
    }
    return state;
  }
  const transition = transitionOf(event.type);
  if (!transition) return state;
  const outcome = LIFECYCLE[state.status][transition];
  if (outcome === REFUSED || outcome === UNCHANGED) return state;
  return { ...state, status: outcome, updatedAt: event.time };
}
