import { checkCloudEvent, type CloudEvent } from '@im/cloudevents';
import { InvalidError, TooLargeError } from '@im/incidents';

/** POST /api/v1/timeline/events: the body must be one valid CloudEvent (413 when it is over the event size limit). */
export function parseCloudEventBody(body: unknown): CloudEvent {
  const check = checkCloudEvent(body);
  if (check.ok) return check.event;
  const message = `Invalid CloudEvent: ${check.errors.join('; ')}`;
  throw check.tooLarge ? new TooLargeError(message) : new InvalidError(message);
}
