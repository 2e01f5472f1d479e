
/** Time from the ledger storing an event to every read model showing it, over the recent events. */
export interface LagSummary {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The process that keeps the read models caught up with the log: started and stopped with the application. */
export interface ProjectionWorker {
  /** Resumes every projection from its checkpoint and follows the log. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once every projection has applied what the log holds now. */
  catchUp(timeoutMs: number): Promise<void>;
  /** The lowest position every projection has applied. */
  readonly position: bigint;
  /** Store-to-read-model lag over the recent events; undefined before any. */
  recentLag(): LagSummary | undefined;
  /** The catch-up in bulk of read models found far behind on start, while it runs. */
  catchUpProgress(): CatchUpProgress | undefined;
}

/**
 * Nest injection token of the ProjectionWorker: bound to null where the
 * projections run in another process (PROJECTOR=external).
 */
export const PROJECTION_WORKER = Symbol('PROJECTION_WORKER');

/** A bulk catch-up under way: from where, to about where, since when (ms since the epoch). */
export interface CatchUpProgress {
  projections: string[];
  from: bigint;
  applied: bigint;
  head: bigint;
  startedAt: number;
}
