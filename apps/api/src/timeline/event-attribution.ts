import { type CloudEvent, withSender } from '@im/cloudevents';
import { ForbiddenError } from '@im/incidents';
import type { Principal } from '@im/access';
import type { BatchItem } from './cloud-event.body';

/**
 * The role of a bridge that relays other people's words (a chat or ticketing bridge): its
 * events may name as `im.actor` someone other than the token's subject. Any other writer's
 * `im.actor` is itself or absent.
 */
export const RELAY_ROLE = 'timeline.relay';

/**
 * The event as the service stores it for its authenticated writer: every event records its
 * sender (the caller's id), whatever it claims. An event written with an integration key
 * names that key as its actor (`integration:<id>`), whatever `im.actor` it carried: a
 * long-lived machine credential must not write in a person's name. A token may claim
 * another actor only with RELAY_ROLE (403 otherwise).
 */
export function attributed(event: CloudEvent, writer: Principal): CloudEvent {
  if (writer.integrationKey !== undefined) return withSender({ ...event, 'im.actor': writer.sub }, writer.sub);
  const claimed = event['im.actor'];
  if (claimed !== undefined && claimed !== writer.sub && !writer.roles.includes(RELAY_ROLE)) {
    throw new ForbiddenError(
      `im.actor ${JSON.stringify(claimed)} is not you (${writer.sub}): only a token with role ${RELAY_ROLE} may write in another's name; leave im.actor out or set it to ${JSON.stringify(writer.sub)}`,
    );
  }
  return withSender(event, writer.sub);
}

/** One event of a batch attributed: a refusal belongs to its event only. */
export function attributedItem(item: BatchItem, writer: Principal): BatchItem {
  if ('refused' in item) return item;
  try {
    return { event: attributed(item.event, writer) };
  } catch (error) {
    if (error instanceof ForbiddenError) return { refused: error };
    throw error;
  }
}
