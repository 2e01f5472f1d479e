import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type NotificationSettings,
  type SavedNotificationSettings,
  PREFERENCES_UPDATED_TYPE,
  updateNotificationSettings,
  userStreamId,
} from '@im/incidents';
import { CLOCK, type Clock, CommandHandler, ID_GENERATOR, type IdGenerator, ReadYourWrites, serviceEvent, type StreamModel } from '@im/write-path';

/** A responder's stream: each update carries the whole, merged settings, so the last one is the state. */
const preferencesStream: StreamModel<SavedNotificationSettings> = {
  subject: 'notification preferences',
  initialState: DEFAULT_NOTIFICATION_SETTINGS,
  evolve: (state, { event }) => (event.type === PREFERENCES_UPDATED_TYPE ? ((event.data as SavedNotificationSettings | undefined) ?? state) : state),
};

/**
 * Saves a responder's notification preferences as an event on their own
 * stream (`user-<sub>`), with the address of the token's `email` claim (a
 * token without one keeps the address remembered before).
 */
@Injectable()
export class PreferencesCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    private readonly views: ReadYourWrites,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async update(userId: string, update: Parameters<typeof updateNotificationSettings>[1], token: { email?: string; clearance?: string } = {}): Promise<NotificationSettings> {
    const { state, position } = await this.commands.handle(preferencesStream, userStreamId(userId), (current) => [
      serviceEvent(this.ids, this.clock, userId, {
        type: PREFERENCES_UPDATED_TYPE,
        data: { ...updateNotificationSettings(current, update), ...(token.email !== undefined ? { email: token.email } : {}), ...(token.clearance !== undefined ? { clearance: token.clearance } : {}) },
      }),
    ]);
    await this.views.waitFor(position);
    return state;
  }
}
