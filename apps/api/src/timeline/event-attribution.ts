import type { CloudEvent } from '@im/cloudevents';
import type { Principal } from '../auth/principal';

/**
 * An event written with an integration key names that key as its actor
 * (`integration:<id>`), whatever `im.actor` it carried: a long-lived machine
 * credential must not write in a person's name, and the timeline then says
 * which integration wrote each event. A token's events keep their own actor.
 */
export const attributed = (event: CloudEvent, writer: Principal): CloudEvent =>
  writer.integrationKey === undefined ? event : { ...event, 'im.actor': writer.sub };
