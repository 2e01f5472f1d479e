import type { NotificationPreferences } from './preferences.projection';

/** Nest injection token of the PreferencesQueries port. */
export const PREFERENCES_QUERIES = Symbol('PREFERENCES_QUERIES');

/** Query side of the notification preferences read model. */
export interface PreferencesQueries {
  /** What the user saved last; undefined until they first save. */
  findByUser(userId: string): Promise<NotificationPreferences | undefined>;
}
