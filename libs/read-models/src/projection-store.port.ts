import type { ProjectionFault } from './projection-fault';

/** What a bulk load covers, and whether it must stay crash safe (the api's catch-up, beside live writes). */
export interface BulkLoadOptions {
  projections?: string[];
  crashSafe?: boolean;
}

/** Nest injection token of the ProjectionStore port. */
export const PROJECTION_STORE = Symbol('PROJECTION_STORE');

export interface StoredDocument<Doc> {
  doc: Doc;
  /** Log position of the last event applied to this document. */
  position: bigint;
}

export interface DocumentWrite<Doc> {
  key: string;
  /** undefined deletes the document. */
  doc: Doc | undefined;
  position: bigint;
}

export interface ProjectionCommit<Doc = unknown> {
  projection: string;
  writes: DocumentWrite<Doc>[];
  position: bigint;
  /** Events of this batch the projection skipped: stored before, or with, the checkpoint that passes them. */
  faults?: ProjectionFault[];
}

/** Storage of the projections' documents, checkpoints and faults: what the runner, a rebuild and diagnostics need. */
export interface ProjectionStore {
  /** Position up to which the projection has been applied (0n: nothing yet). */
  checkpoint(projection: string): Promise<bigint>;
  load<Doc>(projection: string, keys: string[]): Promise<Map<string, StoredDocument<Doc>>>;
  /** Writes the documents and moves the checkpoint to `position`, atomically where the store allows it. */
  commit<Doc>(projection: string, writes: DocumentWrite<Doc>[], position: bigint): Promise<void>;
  /** Several projections' commits together: one transaction where the store allows it. */
  commitBatch(commits: ProjectionCommit[]): Promise<void>;
  /** Drops every document, the checkpoint and the faults of a projection (before a rebuild). */
  reset(projection: string): Promise<void>;
  /**
   * Every recorded fault, by projection and position. Recording one again keeps
   * its first sighting and updates the error and the last sighting.
   */
  projectionFaults(): Promise<ProjectionFault[]>;
  /**
   * Runs a rebuild, or a catch-up from far behind, of `projections` (all when not
   * given). The store may defer their index upkeep until `work` settles (their
   * queries throw ReadModelCatchingUpError meanwhile); unless `crashSafe`, it may
   * also trade crash safety for speed: an interrupted rebuild is simply run again.
   */
  bulkLoad<T>(work: () => Promise<T>, options?: BulkLoadOptions): Promise<T>;
}
