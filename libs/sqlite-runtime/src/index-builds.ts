import { askWorker } from './worker-thread';
import type { IndexBuildData } from './workers/index-builds.worker';

/** The settings of the store's connection during a bulk load, for the connection that builds its indexes. */
export type BulkLoadSettings = Pick<IndexBuildData, 'cacheSize' | 'busyTimeoutMs'>;

/**
 * Runs the CREATE INDEX statements that end a bulk catch-up in a worker
 * thread: at a million rows each takes a second or more of sorting, which on
 * the store's connection held the event loop (health checks, writes and
 * streams waited). Resolves once every index is committed; rejects with the
 * SQLite error (and its code) of the first that failed.
 */
export async function buildIndexesInWorker(file: string, statements: string[], { cacheSize, busyTimeoutMs }: BulkLoadSettings): Promise<void> {
  if (statements.length > 0) await askWorker('index-builds', { file, statements, cacheSize, busyTimeoutMs } satisfies IndexBuildData);
}
