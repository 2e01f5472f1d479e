/**
 * A kind of stream the service writes: how one is named, and what a client
 * calls what it holds ("The <subject> changed while the request was decided").
 */
export interface StreamKind {
  readonly subject: string;
  /** The stream of a key (an incident id, a responder, a fingerprint); a kind with one stream ignores the key. */
  streamId(key: string): string;
}

/** An event as a service stream's fold reads it: its type and data (the envelope is the write path's). */
export interface StreamEvent {
  type: string;
  data?: object;
}

/**
 * The rules of one kind of stream: `decide` answers the events a command adds
 * (none: no change) or throws a DomainError; `evolve` folds an event in. The
 * write path runs every stream the service writes through one of these.
 */
export interface Decider<Command, State, Event> {
  readonly stream: StreamKind;
  readonly initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}
