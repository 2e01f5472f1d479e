import { Pool, type PoolConfig, types } from 'pg';

/** How long a new connection may take: an unreachable server fails a request instead of holding it for the kernel's TCP timeout. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * How long the server lets a session sit idle inside a transaction before it ends it. A process
 * paused (SIGSTOP, a frozen VM) between two statements of a transaction would otherwise hold its
 * row locks for as long as it sleeps: the log head (every append waits) or a lease row (its
 * takeover waits). Our transactions run their statements back to back, never near this.
 */
const IDLE_IN_TRANSACTION_MS = 5000;

export interface PostgresPoolOptions {
  /** Connections at most (pg's default is 10). */
  max?: number;
  /** Shown in pg_stat_activity: which process and part holds a connection. */
  applicationName?: string;
}

// Positions, revisions and generations are bigint columns: read them as bigint, never as a rounded number.
const int8AsBigint = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === types.builtins.INT8 ? (value: string) => BigInt(value) : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/** A pool on `url` (any libpq connection string). Nothing connects until the first query. */
export function openPostgresPool(url: string, { max, applicationName }: PostgresPoolOptions = {}): Pool {
  const config: PoolConfig = {
    connectionString: url,
    types: int8AsBigint,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    ...(max ? { max } : {}),
    ...(applicationName ? { application_name: applicationName } : {}),
  };
  const pool = new Pool(config);
  // An idle connection the server drops (restart, admin kill) emits here; unhandled it would end the process. The next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** The connection string without its password, for messages. */
export const redactedUrl = (url: string) => url.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@');
