import { Inject, Injectable } from '@nestjs/common';
import { toCloudEvent } from '@im/cloudevents';
import { ESCALATION_ACTOR, type Incident, type IncidentCommand, type IncidentEvent, type PagingDue, pagingDue } from '@im/incidents';
import { type EscalationPolicyRecord, INCIDENT_QUERIES, type IncidentQueries, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';
import { CLOCK, type Clock, CommandHandler, incidentWrites } from '@im/write-path';
import type { DueSource, DueWork } from './due-work';
import { PagingPlans } from './paging-plans';

/** Incidents read per query while looking for due escalations. */
const PAGE = 500;

/** An incident whose paging is due, with the policy it pages by. */
export interface DueEscalation {
  incident: Incident;
  policy: EscalationPolicyRecord;
  due: PagingDue;
}

/**
 * Of open incidents still paging, those whose next page is due at `now`: the
 * first page at once, a later step once its delay has passed. An incident
 * whose policy is gone has nothing to page.
 */
export function escalationsDue(incidents: readonly Incident[], policies: ReadonlyMap<string, EscalationPolicyRecord>, now: Date): DueEscalation[] {
  return incidents.flatMap((incident) => {
    const policy = incident.escalation?.policyId ? policies.get(incident.escalation.policyId) : undefined;
    const due = policy && pagingDue(incident, policy);
    return policy && due && Date.parse(due.at) <= now.getTime() ? [{ incident, policy, due }] : [];
  });
}

/** What a timer appends: paging events by system:escalation. */
export const escalationEnvelope = (event: IncidentEvent) => toCloudEvent(event, { actor: ESCALATION_ACTOR, sender: ESCALATION_ACTOR });

/**
 * The escalation timers as due work: open incidents with a policy (the
 * incident read model's paging index), each policy's delays, and the
 * incident decider's page and escalate commands through the one write path,
 * appended at the stream's revision. The decider pages only a step still
 * current and due, so a firing decided twice (two processes, a restart, a
 * read model behind the ledger) pages once.
 */
@Injectable()
export class EscalationsDue implements DueSource {
  readonly name = 'escalations';

  constructor(
    @Inject(INCIDENT_QUERIES) private readonly incidents: IncidentQueries,
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly plans: PagingPlans,
    private readonly commands: CommandHandler,
  ) {}

  async due(now: Date): Promise<DueWork[]> {
    const policies = new Map((await this.oncall.escalationPolicies.list()).map((policy) => [policy.id, policy]));
    const work: DueWork[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.incidents.listPaging({ limit: PAGE, after });
      for (const due of escalationsDue(page, policies, now)) work.push({ key: `escalation:${due.incident.id}`, fire: () => this.fire(due) });
      if (page.length < PAGE) return work;
      after = page[page.length - 1].id;
    }
  }

  /** Targets are resolved as it fires; the command is decided on the incident's stream as it stands then. */
  private async fire({ incident, policy, due }: DueEscalation): Promise<void> {
    const plan = await this.plans.planOf(policy, this.clock.now());
    const command = (incidentId: string): IncidentCommand => {
      const time = this.clock.now().toISOString();
      return due.kind === 'page' ? { kind: 'page', incidentId, time, ...plan } : { kind: 'escalate', incidentId, time, reason: 'timeout', seen: due.seen, ...plan };
    };
    await this.commands.execute(incidentWrites, incident.id, command, { envelope: (event) => escalationEnvelope(event as IncidentEvent), wait: false });
  }
}
