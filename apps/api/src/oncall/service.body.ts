import type { ServiceData } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';
import { BodyFields } from './body-fields';

export type ServiceInput = Omit<ServiceData, 'id'>;

/** POST and PUT /api/v1/services: `{name, description?, escalation_policy_id?}` (absent or null: none). */
export function parseServiceBody(body: unknown): ServiceInput {
  const raw = jsonObjectBody(body);
  const fields = new BodyFields();
  return fields.done({
    name: fields.text(raw.name, 'name'),
    description: fields.optionalText(raw.description, 'description'),
    escalation_policy_id: fields.optionalText(raw.escalation_policy_id, 'escalation_policy_id'),
  });
}
