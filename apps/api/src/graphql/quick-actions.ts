import { type EscalationPolicyShape, type Incident, LIFECYCLE, manualEscalationRefusal, NO_STEPS, noteRefusal, roleAssignmentRefusal, severityChangeRefusal, type Status } from '@im/incidents';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import { ActionType, type MobileAction } from './schema.types';

/** Statuses after which no one meets in the incident's war room (a duplicate's is the one of the incident it duplicates). */
const WAR_ROOM_OVER: ReadonlySet<Status> = new Set(['closed', 'canceled', 'duplicate']);

/**
 * The actions a mobile client offers for an incident, and whether each is
 * enabled for this caller now. Only actions the API can carry out are listed.
 * The mutations need timeline.writer; beyond that each action is enabled by
 * the rule its command is decided with, so the two never disagree:
 * - ACK: while acknowledging changes something (the incident is open);
 * - ESCALATE: manualEscalationRefusal (open or acknowledged, with a policy and a step left);
 * - ADD_NOTE: noteRefusal (until the incident is closed);
 * - CHANGE_SEVERITY: severityChangeRefusal (until the incident is closed);
 * - ASSIGN_ROLE: roleAssignmentRefusal (until closed; the commander, incidents.admin, or anyone while there is none);
 * - JOIN_WAR_ROOM: when a war room link is configured, until the incident is over: closed, canceled
 *   or a duplicate (no mutation, no role needed).
 */
export function quickActions(incident: Incident, caller: Principal, warRoomLink: string | null, policy: EscalationPolicyShape | undefined): MobileAction[] {
  const writer = caller.roles.includes(TIMELINE_ROLES.writer);
  const action = (actionType: ActionType, label: string, icon: string, enabled: boolean, confirmText: string | null = null) => ({
    id: `${incident.id}:${actionType}`,
    label,
    icon,
    actionType,
    enabled,
    confirmText,
  });
  return [
    action(ActionType.ACK, 'Acknowledge', 'check-circle', writer && LIFECYCLE[incident.status].ack === 'acknowledged', `Acknowledge ${incident.id}?`),
    action(ActionType.ESCALATE, 'Escalate', 'bell-ring', writer && !manualEscalationRefusal(incident, policy ?? NO_STEPS), `Page the next step for ${incident.id}?`),
    action(ActionType.ADD_NOTE, 'Add note', 'note', writer && !noteRefusal(incident)),
    action(ActionType.CHANGE_SEVERITY, 'Change severity', 'gauge', writer && !severityChangeRefusal(incident)),
    action(ActionType.ASSIGN_ROLE, 'Assign role', 'user-plus', writer && !roleAssignmentRefusal(incident, { id: caller.sub, roles: caller.roles })),
    action(ActionType.JOIN_WAR_ROOM, 'Join war room', 'video', !WAR_ROOM_OVER.has(incident.status) && warRoomLink !== null),
  ];
}
