import { Inject } from '@nestjs/common';
import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import { READ_STORE, type ReadStore } from '@im/read-models';
import type { Principal } from '../auth/principal';
import { PreferencesCommandHandler } from '../preferences/preferences-command.handler';
import { GqlPrincipal } from './graphql-context';
import { fromGqlSeverity, toGqlPreferences } from './schema.mapping';
import { NotificationPreferences, NotificationPreferencesInput } from './schema.types';

@Resolver()
export class PreferencesResolver {
  constructor(
    private readonly commands: PreferencesCommandHandler,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  @Query(() => NotificationPreferences, { nullable: true, description: "The caller's settings; null until first saved" })
  async notificationSettings(@GqlPrincipal() caller: Principal): Promise<NotificationPreferences | null> {
    const stored = await this.readStore.preferences.findByUser(caller.sub);
    return stored ? toGqlPreferences(caller.sub, stored) : null;
  }

  @Mutation(() => NotificationPreferences, { description: 'Changes the fields given; quietHours: null turns quiet hours off' })
  async updateNotificationSettings(
    @Args('input') input: NotificationPreferencesInput,
    @GqlPrincipal() caller: Principal,
  ): Promise<NotificationPreferences> {
    const saved = await this.commands.update(caller.sub, {
      ...input,
      severityFilter: input.severityFilter?.map(fromGqlSeverity),
    });
    return toGqlPreferences(caller.sub, saved);
  }
}
