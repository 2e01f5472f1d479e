import { type Incident, LIFECYCLE } from '@im/incidents';
import { ActionType, type MobileAction } from './schema.types';

/**
 * The actions a mobile client offers for an incident, and whether each is
 * enabled for this caller now. Only actions the API can carry out are listed
 * (ESCALATE and CHANGE_SEVERITY have no mutation yet, so they are left out):
 * - ACK: while acknowledging changes something (the incident is open);
 * - ADD_NOTE: until the incident is closed;
 * - ASSIGN_ROLE: for the incident commander, or anyone while there is none, until closed;
 * - JOIN_WAR_ROOM: when a war room link is configured, until closed.
 */
export function quickActions(incident: Incident, callerId: string, warRoomLink: string | null): MobileAction[] {
  const closed = incident.status === 'closed';
  const commander = incident.roles?.IC;
  const action = (actionType: ActionType, label: string, icon: string, enabled: boolean, confirmText: string | null = null) => ({
    id: `${incident.id}:${actionType}`,
    label,
    icon,
    actionType,
    enabled,
    confirmText,
  });
  return [
    action(ActionType.ACK, 'Acknowledge', 'check-circle', LIFECYCLE[incident.status].ack === 'acknowledged', `Acknowledge ${incident.id}?`),
    action(ActionType.ADD_NOTE, 'Add note', 'note', !closed),
    action(ActionType.ASSIGN_ROLE, 'Assign role', 'user-plus', !closed && (commander === undefined || commander === callerId)),
    action(ActionType.JOIN_WAR_ROOM, 'Join war room', 'video', !closed && warRoomLink !== null),
  ];
}
