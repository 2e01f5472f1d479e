import { Injectable } from '@nestjs/common';
import type { NotificationSettings, UpdatePreferences } from '@im/incidents';
import { CommandHandler, userStreamWrites } from '@im/write-path';

/**
 * Saves a responder's notification preferences as an event on their own
 * stream (`user-<sub>`), with the address of the token's `email` claim (a
 * token without one keeps the address remembered before).
 */
@Injectable()
export class PreferencesCommandHandler {
  constructor(private readonly commands: CommandHandler) {}

  async update(userId: string, update: UpdatePreferences['update'], token: { email?: string; clearance?: string } = {}): Promise<NotificationSettings> {
    const command: UpdatePreferences = { kind: 'update', update, email: token.email, clearance: token.clearance };
    const { state } = await this.commands.execute(userStreamWrites, userId, command, { envelope: this.commands.serviceEnvelope(userId) });
    return state.preferences;
  }
}
