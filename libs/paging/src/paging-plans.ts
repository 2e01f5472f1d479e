import { Inject, Injectable } from '@nestjs/common';
import { type CompiledSchedule, type PagingPlan, stepTargetsAt } from '@im/incidents';
import { CompiledSchedules, type EscalationPolicyRecord, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';

/**
 * The one place a policy's steps become the incident decider's per-step
 * targets at an instant (docs/decisions.md, "Paging and its timers"): user
 * targets as they are, schedule targets through onCallAt over the schedules
 * read model, unstaffed schedules listed. The escalation timers and a
 * responder's escalation both page through it.
 */
@Injectable()
export class PagingPlans {
  /** Compiled once per version: a pass of the timers plans every paging incident. */
  private readonly schedules: CompiledSchedules;

  constructor(@Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries) {
    this.schedules = new CompiledSchedules(oncall.schedules);
  }

  /** The policy and every step's targets at `at`; undefined when the policy is gone. */
  async planFor(policyId: string, at: Date): Promise<PagingPlan | undefined> {
    const policy = await this.oncall.escalationPolicies.findById(policyId);
    return policy && this.planOf(policy, at);
  }

  /** The plan of a policy already read (the timers read every policy once per pass). */
  async planOf(policy: EscalationPolicyRecord, at: Date): Promise<PagingPlan> {
    const named = new Set(policy.steps.flatMap(({ targets }) => targets.filter((target) => target.type === 'schedule').map((target) => target.id)));
    const schedules = new Map<string, CompiledSchedule>();
    for (const id of named) {
      const schedule = await this.schedules.get(id);
      if (schedule) schedules.set(id, schedule.compiled);
    }
    return { policy: { steps: policy.steps, repeat: policy.repeat }, targets: stepTargetsAt(policy.steps, schedules, at.getTime()) };
  }
}
