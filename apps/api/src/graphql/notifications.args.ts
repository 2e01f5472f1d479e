import { InvalidError } from '@im/incidents';
import { NOTIFICATIONS_DEFAULT_LIMIT, NOTIFICATIONS_MAX_LIMIT } from './notifications.types';

/** notifications(limit:): `Int = 50` as docs/api.md has it, so an explicit null means the default. */
export function parseNotificationsLimit(requested: number | null | undefined): number {
  const limit = requested ?? NOTIFICATIONS_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > NOTIFICATIONS_MAX_LIMIT) {
    throw new InvalidError(`limit must be from 1 to ${NOTIFICATIONS_MAX_LIMIT}`);
  }
  return limit;
}
