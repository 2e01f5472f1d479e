import { type CloudEvent, SERVICE_SOURCE } from '@im/cloudevents';
import type { Clock } from './clock';
import type { IdGenerator } from './id-generator';

/** An event the service itself writes (a responder's settings, a subscription, a key): its envelope, stamped now by `actor`. */
export const serviceEvent = (ids: IdGenerator, clock: Clock, actor: string, event: { type: string; data: object }): CloudEvent => ({
  specversion: '1.0',
  id: ids.eventId(),
  source: SERVICE_SOURCE,
  type: event.type,
  time: clock.now().toISOString(),
  'im.actor': actor,
  data: { ...event.data },
});
