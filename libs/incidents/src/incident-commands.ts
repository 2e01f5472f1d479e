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

export type IncidentCommand = DeclareIncident | TransitionIncident;
