import { DatabaseError } from 'pg';
import { StorageFaultError, type StorageFaultKind } from '@im/event-store';

/** PostgreSQL's SQLSTATEs that are the server's condition, not a request's or a bug's (protocol_violation, 08P01, is a bug). */
const SQLSTATE_KINDS: Record<string, StorageFaultKind> = {
  '53100': 'full', // disk_full
  '25006': 'read_only', // read_only_sql_transaction: a hot standby, default_transaction_read_only
  '42501': 'read_only', // insufficient_privilege: the role may not write
  '55P03': 'busy', // lock_not_available: lock_timeout ran out
  '58030': 'io', // io_error
  XX001: 'corrupt', // data_corrupted
  XX002: 'corrupt', // index_corrupted
  '53300': 'unreachable', // too_many_connections
  '57P01': 'unreachable', // admin_shutdown (also pg_terminate_backend)
  '57P02': 'unreachable', // crash_shutdown
  '57P03': 'unreachable', // cannot_connect_now: starting up, recovering
  '25P03': 'unreachable', // idle_in_transaction_session_timeout: the session was ended
  '08000': 'unreachable', // connection_exception
  '08001': 'unreachable', // sqlclient_unable_to_establish_sqlconnection
  '08003': 'unreachable', // connection_does_not_exist
  '08004': 'unreachable', // sqlserver_rejected_establishment_of_sqlconnection
  '08006': 'unreachable', // connection_failure
};

/** node-postgres's own words for a connection it lost or could not make (they carry no code). */
const CONNECTION_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/**
 * An error node-postgres threw (a query's, a connection's), as the storage
 * fault it is (StorageFaultError, which the service answers 503 or 507), or
 * unchanged when it is not one. A connection lost or refused is
 * `unreachable`, with the OS errno name, else connection_failure (08006).
 */
export function postgresFault(error: unknown): unknown {
  if (error instanceof StorageFaultError) return error;
  if (error instanceof DatabaseError) {
    const kind = error.code === undefined ? undefined : SQLSTATE_KINDS[error.code];
    return kind ? new StorageFaultError({ kind, code: error.code! }, error) : error;
  }
  const { code, syscall, message } = (error ?? {}) as NodeJS.ErrnoException;
  if ((typeof code === 'string' && typeof syscall === 'string') || (typeof message === 'string' && CONNECTION_LOST.test(message))) {
    return new StorageFaultError({ kind: 'unreachable', code: typeof code === 'string' ? code : '08006' }, error);
  }
  return error;
}
