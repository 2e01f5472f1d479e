import type { Status } from './incident';

/** The moves an incident takes without data: each is an event `im.incident.<move>` with `{}`. */
export const TRANSITIONS = ['ack', 'mitigate', 'resolve', 'close', 'cancel'] as const;
export type Transition = (typeof TRANSITIONS)[number];

/** Every move of the table: the transitions and `duplicate`, which names the incident it duplicates. */
export type LifecycleMove = Transition | 'duplicate';

/** The move is allowed but the incident is already there: answer, append nothing. */
export const UNCHANGED = 'unchanged';
/** The move is not allowed from this state: 409. */
export const REFUSED = 'refused';

export type TransitionOutcome = Status | typeof UNCHANGED | typeof REFUSED;

const R = REFUSED;
const U = UNCHANGED;

/**
 * Forward-only lifecycle (docs/decisions of the spec); mitigation needs an
 * acknowledgement first. Canceled and duplicate are final. Row = current
 * status, column = requested move.
 */
export const LIFECYCLE: Record<Status, Record<LifecycleMove, TransitionOutcome>> = {
  //             ack              mitigate      resolve      close     cancel       duplicate
  open:         { ack: 'acknowledged', mitigate: R,       resolve: 'resolved', close: R,  cancel: 'canceled', duplicate: 'duplicate' },
  acknowledged: { ack: U,         mitigate: 'mitigated',  resolve: 'resolved', close: R,  cancel: 'canceled', duplicate: 'duplicate' },
  mitigated:    { ack: R,         mitigate: U,            resolve: 'resolved', close: R,  cancel: R,          duplicate: 'duplicate' },
  resolved:     { ack: R,         mitigate: R,            resolve: U,  close: 'closed',   cancel: R,          duplicate: R },
  closed:       { ack: R,         mitigate: R,            resolve: R,  close: U,          cancel: R,          duplicate: R },
  canceled:     { ack: R,         mitigate: R,            resolve: R,  close: R,          cancel: U,          duplicate: R },
  duplicate:    { ack: R,         mitigate: R,            resolve: R,  close: R,          cancel: R,          duplicate: U },
};

export const isTransition = (value: unknown): value is Transition =>
  typeof value === 'string' && (TRANSITIONS as readonly string[]).includes(value);
