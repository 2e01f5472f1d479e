import type { ReadStore } from './read-store.port';
import { type LagSummary, ProjectionLagError } from './projection-runner';

/** How far the read models have applied the log, and a way to wait for a position. */
export interface ProjectionProgress {
  /** Resolves once every projection has applied `position`; rejects with ProjectionLagError after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<void>;
  /** The lowest position every projection has applied. */
  appliedPosition(): Promise<bigint>;
  /** Store-to-read-model lag over recent events, where this process runs the projections. */
  recentLag?(): LagSummary | undefined;
}

export const PROJECTION_PROGRESS = Symbol('PROJECTION_PROGRESS');

const POLL_MS = 20;

/**
 * Progress of projections that run in another process (apps/projector): read
 * from the checkpoints they commit, polled until the position is reached.
 */
export class CheckpointProgress implements ProjectionProgress {
  constructor(
    private readonly readStore: ReadStore,
    private readonly projections: string[],
  ) {}

  async appliedPosition(): Promise<bigint> {
    const checkpoints = await Promise.all(this.projections.map((name) => this.readStore.checkpoint(name)));
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
