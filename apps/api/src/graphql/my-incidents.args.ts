import { InvalidError } from '@im/incidents';
import { MY_INCIDENTS_DEFAULT_LIMIT, MY_INCIDENTS_MAX_LIMIT } from './schema.types';

/** myIncidents(limit:): `Int = 20` as docs/api.md has it, so an explicit null means the default. */
export function parseMyIncidentsLimit(requested: number | null | undefined): number {
  const limit = requested ?? MY_INCIDENTS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MY_INCIDENTS_MAX_LIMIT) {
    throw new InvalidError(`limit must be from 1 to ${MY_INCIDENTS_MAX_LIMIT}`);
  }
  return limit;
}
