import type { Decider, StreamEvent } from '../decider';
import { decidePreferences, DEFAULT_NOTIFICATION_SETTINGS, evolvePreferences, type SavedNotificationSettings, type UpdatePreferences } from '../notification-preferences';
import { userStreamId } from '../stream-names';
import { decidePushSubscription, evolvePushSubscriptions, initialPushSubscriptionsState, type PushSubscriptionCommand, type PushSubscriptionsState } from './push-subscriptions';

/** What a responder's stream keeps: their notification preferences and their Web Push subscriptions. */
export interface UserStreamState {
  preferences: SavedNotificationSettings;
  subscriptions: PushSubscriptionsState;
}

export type UserStreamCommand = UpdatePreferences | PushSubscriptionCommand;

/**
 * The one Decider of a responder's stream (`user-<sub>`). Preferences and push
 * subscriptions share the stream, so they share its Decider: every write to
 * the stream is decided on the state of the whole stream, at the revision it
 * is appended at, whichever of the two it changes.
 */
export const userStreamDecider: Decider<UserStreamCommand, UserStreamState, StreamEvent> = {
  stream: { subject: "responder's settings", streamId: userStreamId },
  initialState: { preferences: DEFAULT_NOTIFICATION_SETTINGS, subscriptions: initialPushSubscriptionsState },
  decide: (command, { preferences, subscriptions }) => (command.kind === 'update' ? decidePreferences(command, preferences) : decidePushSubscription(command, subscriptions)),
  evolve: (state, event) => {
    const preferences = evolvePreferences(state.preferences, event);
    const subscriptions = evolvePushSubscriptions(state.subscriptions, event);
    return preferences === state.preferences && subscriptions === state.subscriptions ? state : { preferences, subscriptions };
  },
};
