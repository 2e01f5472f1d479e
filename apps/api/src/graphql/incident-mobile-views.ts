import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { type EscalationPolicyShape, type Incident, pagingDue } from '@im/incidents';
import type { EscalationPolicyRecord } from '@im/read-models';
import { IncidentVisibility, type Principal } from '@im/access';
import { OncallQueryService } from '../oncall/oncall-query.service';
import { TimelineReader } from '../timeline/timeline-reader.service';
import type { EscalationState } from './oncall.types';
import type { GqlContext } from './graphql-context';
import { quickActions } from './quick-actions';
import { toGqlSeverity, toGqlStatus, toGqlTimelineEvent } from './schema.mapping';
import { IncidentMobileView, type MobileAction, RACIRole } from './schema.types';

/** The escalation state a phone shows; null without a policy. A deleted policy has no name and nothing more due. */
function escalationState(incident: Incident, policy: EscalationPolicyRecord | undefined): EscalationState | null {
  const { escalation } = incident;
  if (!escalation?.policyId) return null;
  const due = policy && pagingDue(incident, policy as EscalationPolicyShape);
  return {
    policyName: policy?.name ?? null,
    step: escalation.step,
    round: escalation.round,
    nextEscalationAt: due ? new Date(due.at) : null,
    exhausted: escalation.exhausted,
    paged: escalation.paged,
  };
}

/** quickTimeline: the newest events a phone shows at a glance; a view's size, not a tuning knob. */
const QUICK_TIMELINE_LENGTH = 5;

/**
 * The phone's view of an incident, for the incidentStatus query and the
 * incidentUpdated subscription alike: the newest events come through the
 * TimelineReader, so they are withheld and redacted for the caller, and an
 * unavailable PDP fails the view.
 */
@Injectable()
export class IncidentMobileViews {
  constructor(
    private readonly timeline: TimelineReader,
    private readonly visibility: IncidentVisibility,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly oncall: OncallQueryService,
  ) {}

  /** incidentStatus: the incident through the request's DataLoader, not found unless the caller may see it. */
  async status(caller: Principal, incidents: GqlContext['incidents'], id: string): Promise<IncidentMobileView> {
    return this.of(caller, await this.revealed(caller, incidents, id));
  }

  /** quickActions: what the caller can do on the incident now, read as incidentStatus reads it. */
  async actions(caller: Principal, incidents: GqlContext['incidents'], id: string): Promise<MobileAction[]> {
    const incident = await this.revealed(caller, incidents, id);
    return quickActions(incident, caller, this.warRoomLink(id), await this.oncall.policyOf(incident));
  }

  /** `incident` must already be revealed to the caller (IncidentVisibility). */
  async of(caller: Principal, incident: Incident): Promise<IncidentMobileView> {
    const { shown } = await this.timeline.revealedIncidentTimeline(caller, incident, { incidentId: incident.id, order: 'desc', limit: QUICK_TIMELINE_LENGTH });
    const commander = incident.roles?.IC;
    return {
      id: incident.id,
      title: incident.title,
      severity: toGqlSeverity(incident.severity),
      status: toGqlStatus(incident.status),
      assignedTo: commander ? { id: commander, role: RACIRole.IC } : null,
      responders: Object.values(RACIRole).flatMap((role) => (incident.roles?.[role] ? [{ id: incident.roles[role], role }] : [])),
      lastUpdate: incident.updatedAt,
      warRoomLink: this.warRoomLink(incident.id),
      alertsFiring: incident.firingAlerts?.length ?? 0,
      quickTimeline: shown.map((s) => toGqlTimelineEvent(s.view)),
      escalation: escalationState(incident, await this.oncall.policyOf(incident)),
      serviceId: incident.escalation?.serviceId ?? null,
    };
  }

  private async revealed(caller: Principal, incidents: GqlContext['incidents'], id: string): Promise<Incident> {
    return this.visibility.reveal(caller, id, await incidents.load(id));
  }

  private warRoomLink(incidentId: string): string | null {
    return this.config.warRoomUrlTemplate?.replace('{id}', encodeURIComponent(incidentId)) ?? null;
  }
}
