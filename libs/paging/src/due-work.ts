/**
 * Timed work the runner fires (docs/decisions.md, "Paging and its timers"):
 * what is due is recomputed from the read models on every pass, never kept
 * only in memory, so a restart or a second process finds the same work.
 * Escalations are one kind; heartbeats will be another.
 */
export interface DueWork {
  /** Names the work for the log (`escalation:<incident id>`). */
  readonly key: string;
  /** Fires it. Firing twice, from two passes or two processes, must change nothing more than once (the decider's checks make it so). */
  fire(): Promise<void>;
}

/** One kind of timed work: what is due at `now`. */
export interface DueSource {
  readonly name: string;
  due(now: Date): Promise<DueWork[]>;
}
