import type { Status } from './incident';

export const TRANSITIONS = ['ack', 'mitigate', 'resolve', 'close'] as const;
export type Transition = (typeof TRANSITIONS)[number];

/** The move is allowed but the incident is already there: answer, append nothing. */
export const UNCHANGED = 'unchanged';
/** The move is not allowed from this state: 409. */
export const REFUSED = 'refused';

export type TransitionOutcome = Status | typeof UNCHANGED | typeof REFUSED;

/**
 * Forward-only lifecycle (docs/decisions of the spec); mitigation needs an
 * acknowledgement first. Row = current status, column = requested move.
 */
export const LIFECYCLE: Record<Status, Record<Transition, TransitionOutcome>> = {
  //             ack              mitigate          resolve           close
  open:         { ack: 'acknowledged', mitigate: REFUSED,     resolve: 'resolved', close: REFUSED },
  acknowledged: { ack: UNCHANGED,      mitigate: 'mitigated', resolve: 'resolved', close: REFUSED },
  mitigated:    { ack: REFUSED,        mitigate: UNCHANGED,   resolve: 'resolved', close: REFUSED },
  resolved:     { ack: REFUSED,        mitigate: REFUSED,     resolve: UNCHANGED,  close: 'closed' },
  closed:       { ack: REFUSED,        mitigate: REFUSED,     resolve: REFUSED,    close: UNCHANGED },
};

export const isTransition = (value: unknown): value is Transition =>
  typeof value === 'string' && (TRANSITIONS as readonly string[]).includes(value);
