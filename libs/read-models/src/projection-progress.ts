import type { ProjectionStore } from './projection-store.port';

/** A write waited longer than it may for the read models to show it. */
export class ProjectionLagError extends Error {}

/** A read model is being caught up in bulk (its secondary indexes are rebuilt when done): it cannot answer queries yet. */
export class ReadModelCatchingUpError extends Error {}

/**
 * How far the read models have applied the log, and a way to wait for a
 * position: what a write needs to answer with what it wrote (read-your-writes).
 */
export interface ProjectionProgress {
  /** Resolves once every projection has applied `position`; rejects with ProjectionLagError after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<void>;
  /** The lowest position every projection has applied. */
  appliedPosition(): Promise<bigint>;
}

/** Nest injection token of the ProjectionProgress port. */
export const PROJECTION_PROGRESS = Symbol('PROJECTION_PROGRESS');

/** How often the checkpoints are read while a write waits on an external projector: a write's wait grows by half of it on average (docs/decisions.md names the 20 ms). */
const POLL_MS = 20;

/**
 * Progress of projections that run in another process (apps/projector): read
 * from the checkpoints they commit, polled until the position is reached.
 */
export class CheckpointProgress implements ProjectionProgress {
  constructor(
    private readonly store: ProjectionStore,
    private readonly projections: string[],
  ) {}

  async appliedPosition(): Promise<bigint> {
    const checkpoints = await Promise.all(this.projections.map((name) => this.store.checkpoint(name)));
    return checkpoints.reduce((lowest, position) => (position < lowest ? position : lowest));
  }

  async waitFor(position: bigint, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.appliedPosition()) < position) {
      if (Date.now() > deadline) {
        throw new ProjectionLagError(`the projector has not applied position ${position} within ${timeoutMs} ms: is apps/projector running?`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
