/**
 * What went wrong with the storage under a store, whichever layer noticed
 * (SQLite or the operating system, read from their errors; a database server's
 * adapter, which says it with a StorageFaultError). Anything else is not a
 * storage fault and stays an internal error.
 */
export type StorageFaultKind = 'full' | 'read_only' | 'io' | 'corrupt' | 'busy' | 'unreachable';

export interface StorageFault {
  kind: StorageFaultKind;
  /** SQLite's extended result code, the OS errno name or PostgreSQL's SQLSTATE, e.g. SQLITE_FULL, ENOSPC, 53100. */
  code: string;
}

/**
 * A storage fault an adapter recognised in its driver's error, where the
 * error alone does not say it is one (a connection to the database server
 * lost or refused, the server's own codes). Its message is the driver's.
 */
export class StorageFaultError extends Error {
  constructor(
    readonly fault: StorageFault,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

const SQLITE_KINDS: Record<string, StorageFaultKind> = {
  FULL: 'full',
  READONLY: 'read_only',
  PERM: 'read_only',
  CANTOPEN: 'io',
  IOERR: 'io',
  CORRUPT: 'corrupt',
  NOTADB: 'corrupt',
  BUSY: 'busy',
  LOCKED: 'busy',
};

const ERRNO_KINDS: Record<string, StorageFaultKind> = {
  ENOSPC: 'full',
  EDQUOT: 'full',
  EROFS: 'read_only',
  EACCES: 'read_only',
  EPERM: 'read_only',
  EIO: 'io',
  ENOTDIR: 'io',
  EISDIR: 'io',
};

/** Only file system calls: the same errno from listen() or connect() is not about storage. */
const FILE_SYSCALLS = new Set(['access', 'open', 'read', 'write', 'fdatasync', 'fsync', 'mkdir', 'rename', 'unlink', 'ftruncate', 'statfs']);

export function storageFaultOf(error: unknown): StorageFault | undefined {
  if (error instanceof StorageFaultError) return error.fault;
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string') return undefined;
  // better-sqlite3's errors carry SQLite's code; extended ones (SQLITE_IOERR_WRITE) mean what their primary code means.
  const sqlite = /^SQLITE_([A-Z]+)/.exec(code);
  const kind = sqlite ? SQLITE_KINDS[sqlite[1]] : syscall !== undefined && FILE_SYSCALLS.has(syscall) ? ERRNO_KINDS[code] : undefined;
  return kind && { kind, code };
}

const WHAT: Record<StorageFaultKind, string> = {
  full: 'is full',
  read_only: 'is read-only',
  io: 'cannot be read or written',
  corrupt: 'is damaged',
  busy: 'is locked by another process',
  unreachable: 'cannot be reached',
};

/** "The server's storage is full (SQLITE_FULL)"; clients are not told file names, operators are (`subject`). */
export const describeStorageFault = ({ kind, code }: StorageFault, subject = "The server's storage"): string => `${subject} ${WHAT[kind]} (${code})`;

/**
 * 507 Insufficient Storage when full: the request was fine and may succeed
 * once space is freed. 503 for the rest: the storage cannot serve now, which
 * is the server's condition, never the client's mistake.
 */
export const storageFaultStatus = ({ kind }: StorageFault): 503 | 507 => (kind === 'full' ? 507 : 503);
