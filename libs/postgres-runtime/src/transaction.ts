import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` on one connection of the pool inside BEGIN … COMMIT, rolled back
 * if it throws. A connection whose rollback fails too is broken: it leaves the
 * pool instead of going back to it.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection lost between two statements (the server ended a session left idle in its transaction) is
  // reported by the next statement; unlistened-for, its error event would end the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
    throw error;
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}
