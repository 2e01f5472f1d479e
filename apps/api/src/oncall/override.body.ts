import { jsonObjectBody } from '../http/json-body.parser';
import { BodyFields } from './body-fields';

export interface OverrideInput {
  user: string;
  start: string;
  end: string;
}

/** POST /api/v1/schedules/{id}/overrides: `{user, start, end}`; times kept in UTC (end after start is the domain's rule). */
export function parseOverrideBody(body: unknown): OverrideInput {
  const raw = jsonObjectBody(body);
  const fields = new BodyFields();
  return fields.done({ user: fields.text(raw.user, 'user'), start: fields.time(raw.start, 'start'), end: fields.time(raw.end, 'end') });
}
