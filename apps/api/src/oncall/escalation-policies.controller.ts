import { configurationController } from './configuration.controller';
import { parseEscalationPolicyBody } from './escalation-policy.body';
import { EscalationPoliciesApiDocs } from './oncall.api-docs';

/** Escalation policies (configuration only; paging is @im/paging's): anyone signed in reads them, an `oncall.admin` changes them. */
export const EscalationPoliciesController = configurationController('EscalationPoliciesController', 'api/v1/escalation-policies', EscalationPoliciesApiDocs, {
  parse: parseEscalationPolicyBody,
  create: (commands, input, admin) => commands.createEscalationPolicy(input, admin),
  update: (commands, id, input, admin) => commands.updateEscalationPolicy(id, input, admin),
  remove: (commands, id, admin) => commands.deleteEscalationPolicy(id, admin),
  list: (oncall) => oncall.escalationPolicies(),
  get: (oncall, id) => oncall.escalationPolicy(id),
});
