import {
  DESCRIPTION_MAX_LENGTH,
  type Incident,
  type IncidentState,
  isSeverity,
  SEVERITIES,
  TITLE_MAX_LENGTH,
} from './incident';
import type { DeclareIncident, IncidentCommand, TransitionIncident } from './incident-commands';
import { INCIDENT_EVENT_TYPES, type IncidentEvent, type LedgerEvent, transitionOf } from './incident-events';
import { ConflictError, incidentNotFound, InvalidError } from './domain-errors';
import { LIFECYCLE, REFUSED, UNCHANGED } from './lifecycle';

export const initialState: IncidentState = undefined;

/** Decides which events a command produces against the current state; throws a DomainError when it cannot. */
export function decide(command: IncidentCommand, state: IncidentState): IncidentEvent[] {
  return command.kind === 'declare' ? decideDeclare(command, state) : decideTransition(command, state);
}

function decideDeclare(command: DeclareIncident, state: IncidentState): IncidentEvent[] {
  if (state) throw new ConflictError(`Incident ${command.incidentId} already exists`);
  const { title, severity, description } = command;
  if (typeof title !== 'string' || title.trim() === '') {
    throw new InvalidError('title is required and must be a non-empty string');
  }
  if (title.length > TITLE_MAX_LENGTH) {
    throw new InvalidError(`title must be at most ${TITLE_MAX_LENGTH} characters`);
  }
  if (!isSeverity(severity)) {
    throw new InvalidError(`severity must be one of ${SEVERITIES.join(', ')}`);
  }
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
      data: { title: title.trim(), severity, ...(description !== undefined ? { description } : {}) },
    },
  ];
}

function decideTransition(command: TransitionIncident, state: IncidentState): IncidentEvent[] {
  if (!state) throw incidentNotFound(command.incidentId);
  const outcome = LIFECYCLE[state.status][command.kind];
  if (outcome === REFUSED) {
    throw new ConflictError(
      `Cannot ${command.kind} incident ${state.id}: it is ${state.status}`,
    );
  }
  if (outcome === UNCHANGED) return [];
  return [
    { type: INCIDENT_EVENT_TYPES[command.kind], incidentId: state.id, time: command.time, data: {} },
  ];
}

/**
 * Folds one event into the state. Events it does not know (notes, alerts, …)
 * leave the incident as it is, so the same fold serves every stream reader.
 */
export function evolve(state: IncidentState, event: IncidentEvent | LedgerEvent): IncidentState {
  if (event.type === INCIDENT_EVENT_TYPES.declare) {
    if (state) return state;
    const { data } = event as Extract<IncidentEvent, { type: 'im.incident.declare' }>;
    const incident: Incident = {
      id: event.incidentId,
      title: data.title,
      severity: data.severity,
      status: 'open',
      createdAt: event.time,
      updatedAt: event.time,
    };
    if (data.description !== undefined) incident.description = data.description;
    return incident;
  }
  const transition = transitionOf(event.type);
  if (!state || !transition) return state;
  const outcome = LIFECYCLE[state.status][transition];
  if (outcome === REFUSED || outcome === UNCHANGED) return state;
  return { ...state, status: outcome, updatedAt: event.time };
}
