import { PREFERENCES_UPDATED_TYPE, type Severity, USER_STREAM_PREFIX } from '@im/incidents';
import type { Projection } from '../projection';

export interface QuietHours {
  /** HH:MM, local to timeZone. */
  start: string;
  end: string;
  /** IANA time zone, e.g. Europe/Berlin. */
  timeZone: string;
}

/** A responder's notification preferences; each update event carries the whole, merged value. */
export interface NotificationPreferences {
  userId: string;
  pushEnabled: boolean;
  severityFilter: Severity[];
  quietHours: QuietHours | null;
  channels: string[];
  /** Where notification mail goes: the `email` claim of the token that saved them last (or earlier, when that one had none). */
  email?: string;
  /** The clearance of that token: mail about incidents withheld from it is not sent. */
  clearance?: string;
  updatedAt: string;
}

export const preferencesProjection: Projection<NotificationPreferences> = {
  name: 'preferences',
  keyOf: ({ streamId, event }) =>
    streamId.startsWith(USER_STREAM_PREFIX) && event.type === PREFERENCES_UPDATED_TYPE
      ? streamId.slice(USER_STREAM_PREFIX.length)
      : undefined,
  evolve: (_, { streamId, event }) => ({
    ...(event.data as Omit<NotificationPreferences, 'userId' | 'updatedAt'>),
    userId: streamId.slice(USER_STREAM_PREFIX.length),
    updatedAt: event.time,
  }),
};
