import { Args, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { Principal } from '@im/access';
import { PreferencesCommandHandler } from '../preferences/preferences-command.handler';
import { PreferencesQueryService } from '../preferences/preferences-query.service';
import { GqlPrincipal } from './graphql-context';
import { fromGqlSeverity, toGqlPreferences } from './schema.mapping';
import { NotificationPreferences, NotificationPreferencesInput } from './schema.types';

@Resolver()
export class PreferencesResolver {
  constructor(
    private readonly commands: PreferencesCommandHandler,
    private readonly preferences: PreferencesQueryService,
  ) {}

  // Nullable by contract, but never null: a client caches this object and updates it by id, which a null cannot be.
  @Query(() => NotificationPreferences, { nullable: true, description: "The caller's settings; the defaults until first saved" })
  async notificationSettings(@GqlPrincipal() caller: Principal): Promise<NotificationPreferences> {
    return toGqlPreferences(caller.sub, await this.preferences.settings(caller.sub));
  }

  @Mutation(() => NotificationPreferences, { description: 'Changes the fields given; quietHours: null turns quiet hours off' })
  async updateNotificationSettings(
    @Args('input') input: NotificationPreferencesInput,
    @GqlPrincipal() caller: Principal,
  ): Promise<NotificationPreferences> {
    const saved = await this.commands.update(caller.sub, {
      ...input,
      severityFilter: input.severityFilter?.map(fromGqlSeverity),
    }, caller);
    return toGqlPreferences(caller.sub, saved);
  }
}
