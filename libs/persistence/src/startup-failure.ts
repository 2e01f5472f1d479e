import { ConfigError } from '@im/config';
import { ReadModelsAheadError } from '@im/read-models';
import { asStorageError } from './storage-error';

/**
 * What a process prints when it cannot start: a configuration or storage
 * problem is one clear line, not a stack trace. Anything else is a bug, shown whole.
 */
export function startupFailure(error: unknown): string | unknown {
  const storage = asStorageError(error);
  if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
  if (storage) return `Storage error: ${storage.message}`;
  if (error instanceof ReadModelsAheadError) return error.message;
  return error;
}

/** Ends a process that failed to start, with exit code 1. */
export function exitOnStartupFailure(error: unknown): never {
  console.error(startupFailure(error));
  process.exit(1);
}
