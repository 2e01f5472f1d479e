import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SERVICE_SOURCE } from '@im/cloudevents';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '@im/event-store';
import { DEFAULT_NOTIFICATION_SETTINGS, type NotificationSettings, updateNotificationSettings } from '@im/incidents';
import { PREFERENCES_UPDATED_TYPE, userStreamId } from '@im/read-models';
import { IncidentStreamWriter } from '../ledger/incident-stream.writer';

const MAX_ATTEMPTS = 20;

/** Saves a responder's notification preferences as an event on their own stream (`user-<sub>`). */
@Injectable()
export class PreferencesCommandHandler {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly writer: IncidentStreamWriter,
  ) {}

  async update(userId: string, update: Parameters<typeof updateNotificationSettings>[1]): Promise<NotificationSettings> {
    const streamId = userStreamId(userId);
    for (let attempt = 1; ; attempt++) {
      const stream = await this.eventStore.readStream(streamId);
      const last = stream[stream.length - 1];
      const current = (last?.event.data as NotificationSettings | undefined) ?? DEFAULT_NOTIFICATION_SETTINGS;
      const next = updateNotificationSettings(current, update);
      try {
        const { position } = await this.eventStore.append(
          streamId,
          [{ specversion: '1.0', id: randomUUID(), source: SERVICE_SOURCE, type: PREFERENCES_UPDATED_TYPE, time: new Date().toISOString(), 'im.actor': userId, data: { ...next } }],
          last ? last.revision : 'no_stream',
        );
        await this.writer.waitForViews(position);
        return next;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}
