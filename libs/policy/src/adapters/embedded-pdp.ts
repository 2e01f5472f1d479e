import type { PolicyDecision, PolicyDecisionPoint, PolicyInput, PolicyResource, RedactedField } from '../policy.port';
import type { TimelinePolicy } from '../timeline-policy';

/** Evaluates the policy file in-process: the same rules as policy/timeline.rego. */
export class EmbeddedPdp implements PolicyDecisionPoint {
  constructor(private readonly policy: TimelinePolicy) {}

  async decide(input: PolicyInput): Promise<PolicyDecision[]> {
    const { policy } = this;
    const roleGranted = input.subject.roles.includes(policy.roles[input.action]);
    const clearance = policy.visibility_rank[input.subject.clearance ?? policy.default_clearance];
    const granted = new Set(input.subject.data_access);
    return input.resources.map((resource) => {
      const rank = policy.visibility_rank[resource.visibility ?? policy.default_visibility];
      // An unknown level on either side ranks as nothing visible.
      const visible = roleGranted && rank !== undefined && clearance !== undefined && rank <= clearance;
      return { visible, redact: this.redactions(resource, granted) };
    });
  }

  private redactions(resource: PolicyResource, granted: Set<string>): RedactedField[] {
    const missing = (resource.data_class ?? []).filter((c) => !granted.has(c));
    if (missing.length === 0) return [];
    const actor = missing.some((c) => this.policy.redaction.actor_redacted_for.includes(c));
    return actor ? ['content', 'data', 'actor'] : ['content', 'data'];
  }

  async ping(): Promise<void> {}
}
