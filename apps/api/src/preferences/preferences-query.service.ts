import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings } from '@im/incidents';
import { PREFERENCES_QUERIES, type PreferencesQueries } from '@im/read-models';

/** A responder's notification preferences as every edge answers them. */
@Injectable()
export class PreferencesQueryService {
  constructor(@Inject(PREFERENCES_QUERIES) private readonly preferences: PreferencesQueries) {}

  /** What the user saved last; the defaults until they first save. */
  async settings(userId: string): Promise<NotificationSettings> {
    return (await this.preferences.findByUser(userId)) ?? DEFAULT_NOTIFICATION_SETTINGS;
  }
}
