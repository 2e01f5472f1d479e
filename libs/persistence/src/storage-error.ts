import { describeStorageFault, storageFaultOf } from '@im/event-store';

/** The data directory or a store file in it cannot be used: the process says so in one line (`Storage error: ...`) and exits non-zero. */
export class StorageError extends Error {}

/** What is wrong with `path` (DATA_DIR or a file in it), in one line; `ifDamaged` is the advice for a damaged file. */
export function storageError(path: string, error: unknown, ifDamaged = ''): StorageError {
  if (error instanceof StorageError) return error;
  const fault = storageFaultOf(error);
  const reason = (error as Error).message;
  if (!fault) return new StorageError(`${path} cannot be used: ${reason}`);
  return new StorageError(`${describeStorageFault(fault, path)}: ${reason}${fault.kind === 'corrupt' ? ifDamaged : ''}`);
}

/** A StorageError, or a SQLite / file system fault that surfaced later in start-up, as one line for the operator; undefined for anything else. */
export function asStorageError(error: unknown): StorageError | undefined {
  if (error instanceof StorageError) return error;
  const fault = storageFaultOf(error);
  return fault && new StorageError(`${describeStorageFault(fault)}: ${(error as Error).message}`);
}
