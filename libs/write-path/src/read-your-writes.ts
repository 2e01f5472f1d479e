/**
 * Read-your-writes, as the write path needs it: a command answers once the
 * read models show the log up to the position its answer rests on, so the
 * caller's next read sees it. The write path's own port (it knows nothing of
 * the read side); libs/persistence binds it to the projections' progress,
 * which rejects after PROJECTION_WAIT_MS (the write stands, the views are behind).
 */
export interface ReadYourWrites {
  waitFor(position: bigint): Promise<void>;
}

export const READ_YOUR_WRITES = Symbol('READ_YOUR_WRITES');
