import type { PolicyData, PolicyStep, TargetType } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';
import { BodyFields } from './body-fields';

export type EscalationPolicyInput = Omit<PolicyData, 'id'>;

/** POST and PUT /api/v1/escalation-policies: `{name, steps: [{delay_seconds, targets: [{type, id}]}], repeat?}` (repeat 0 when absent). */
export function parseEscalationPolicyBody(body: unknown): EscalationPolicyInput {
  const raw = jsonObjectBody(body);
  const fields = new BodyFields();
  const steps = fields.list(raw.steps, 'steps').map((item, i): PolicyStep => {
    const step = fields.object(item, `steps[${i}]`);
    return {
      delay_seconds: fields.number(step.delay_seconds, `steps[${i}].delay_seconds`),
      targets: fields.list(step.targets, `steps[${i}].targets`).map((entry, j) => {
        const target = fields.object(entry, `steps[${i}].targets[${j}]`);
        return { type: fields.text(target.type, `steps[${i}].targets[${j}].type`) as TargetType, id: fields.text(target.id, `steps[${i}].targets[${j}].id`) };
      }),
    };
  });
  return fields.done({
    name: fields.text(raw.name, 'name'),
    steps,
    repeat: raw.repeat === undefined ? 0 : fields.number(raw.repeat, 'repeat'),
  });
}
