import type { HeartbeatData } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';
import { BodyFields } from './body-fields';

export type HeartbeatInput = Omit<HeartbeatData, 'id'>;

/** POST /api/v1/heartbeats: `{name, interval_seconds, service_id}` (the range and the service are the domain's rules). */
export function parseHeartbeatBody(body: unknown): HeartbeatInput {
  const raw = jsonObjectBody(body);
  const fields = new BodyFields();
  return fields.done({
    name: fields.text(raw.name, 'name'),
    interval_seconds: fields.number(raw.interval_seconds, 'interval_seconds'),
    service_id: fields.text(raw.service_id, 'service_id'),
  });
}
