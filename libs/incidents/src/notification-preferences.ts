import type { StreamEvent } from './decider';
import { InvalidError } from './domain-errors';
import { PREFERENCES_UPDATED_TYPE, userStreamId } from './stream-names';
import { isSeverity, type Severity, SEVERITIES } from './incident';

export const NOTIFICATION_CHANNELS = ['push', 'email'] as const;

export interface QuietHoursSetting {
  start: string;
  end: string;
  timeZone: string;
}

export interface NotificationSettings {
  pushEnabled: boolean;
  severityFilter: Severity[];
  quietHours: QuietHoursSetting | null;
  channels: string[];
}

/** The settings as a responder's stream keeps them: with the address their mail goes to, remembered from their token when they saved. */
export interface SavedNotificationSettings extends NotificationSettings {
  email?: string;
  /** The clearance of the token that saved them: mail about incidents withheld from it is not sent. */
  clearance?: string;
}

/** What a responder gets before saving anything: everything, on every channel, at any hour. */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  pushEnabled: true,
  severityFilter: [...SEVERITIES],
  quietHours: null,
  channels: [...NOTIFICATION_CHANNELS],
};

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

function validTimeZone(zone: unknown): string {
  if (typeof zone !== 'string' || zone === '') throw new InvalidError('quietHours.timeZone must be an IANA time zone such as Europe/Berlin');
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new InvalidError(`quietHours.timeZone "${zone}" is not a known IANA time zone`);
  }
  return zone;
}

/**
 * Applies a partial update to the current settings: fields left out stay as
 * they are, `quietHours: null` turns quiet hours off. Throws InvalidError.
 */
export function updateNotificationSettings<Settings extends NotificationSettings>(
  current: Settings,
  update: { pushEnabled?: unknown; severityFilter?: unknown; quietHours?: unknown; channels?: unknown },
): Settings {
  const next = { ...current };
  if (update.pushEnabled !== undefined && update.pushEnabled !== null) {
    if (typeof update.pushEnabled !== 'boolean') throw new InvalidError('pushEnabled must be true or false');
    next.pushEnabled = update.pushEnabled;
  }
  if (update.severityFilter !== undefined && update.severityFilter !== null) {
    if (!Array.isArray(update.severityFilter) || !update.severityFilter.every(isSeverity)) {
      throw new InvalidError(`severityFilter must list severities among ${SEVERITIES.join(', ')}`);
    }
    next.severityFilter = SEVERITIES.filter((s) => (update.severityFilter as string[]).includes(s));
  }
  if (update.channels !== undefined && update.channels !== null) {
    const channels = update.channels;
    if (!Array.isArray(channels) || !channels.every((c) => (NOTIFICATION_CHANNELS as readonly unknown[]).includes(c))) {
      throw new InvalidError(`channels must list channels among ${NOTIFICATION_CHANNELS.join(', ')}`);
    }
    next.channels = NOTIFICATION_CHANNELS.filter((c) => channels.includes(c));
  }
  if (update.quietHours === null) next.quietHours = null;
  else if (update.quietHours !== undefined) {
    const { start, end, timeZone } = update.quietHours as Record<string, unknown>;
    if (typeof start !== 'string' || !HH_MM.test(start) || typeof end !== 'string' || !HH_MM.test(end)) {
      throw new InvalidError('quietHours.start and quietHours.end must be times as HH:MM (24-hour)');
    }
    if (start === end) throw new InvalidError('quietHours.start and quietHours.end must differ');
    next.quietHours = { start, end, timeZone: validTimeZone(timeZone) };
  }
  return next;
}

/** A responder's update of their settings, with what their token says of them (kept when the token says nothing). */
export interface UpdatePreferences {
  kind: 'update';
  update: Parameters<typeof updateNotificationSettings>[1];
  email?: string;
  clearance?: string;
}

/** An update carries the whole, merged settings (with what the token said), so the last one is the state. */
export function decidePreferences({ update, email, clearance }: UpdatePreferences, current: SavedNotificationSettings): StreamEvent[] {
  return [
    {
      type: PREFERENCES_UPDATED_TYPE,
      data: { ...updateNotificationSettings(current, update), ...(email !== undefined ? { email } : {}), ...(clearance !== undefined ? { clearance } : {}) },
    },
  ];
}

export function evolvePreferences(state: SavedNotificationSettings, event: StreamEvent): SavedNotificationSettings {
  return event.type === PREFERENCES_UPDATED_TYPE ? ((event.data as SavedNotificationSettings | undefined) ?? state) : state;
}
