import { operation } from './graphql';

/** Every GraphQL operation the console sends; test/console validates each against the schema the server emits. */

export type Severity = 'SEV_1' | 'SEV_2' | 'SEV_3' | 'SEV_4';
export type Status = 'OPEN' | 'ACKNOWLEDGED' | 'MITIGATED' | 'RESOLVED' | 'CLOSED' | 'DUPLICATE' | 'CANCELED';
export type RaciRole = 'IC' | 'OPS' | 'COMMS' | 'SECURITY' | 'PRIVACY';
export const SEVERITIES: Severity[] = ['SEV_1', 'SEV_2', 'SEV_3', 'SEV_4'];
export const RACI_ROLES: RaciRole[] = ['IC', 'OPS', 'COMMS', 'SECURITY', 'PRIVACY'];

export interface IncidentSummary {
  id: string;
  title: string;
  severity: Severity;
  status: Status;
  lastUpdate: string;
}

export interface Responder {
  id: string;
  role: RaciRole;
}

export interface IncidentView {
  id: string;
  title: string;
  severity: Severity;
  status: Status;
  assignedTo: Responder | null;
  responders: Responder[];
  lastUpdate: string;
  warRoomLink: string | null;
  alertsFiring: number;
}

export interface Action {
  actionType: 'ACK' | 'ESCALATE' | 'JOIN_WAR_ROOM' | 'ADD_NOTE' | 'CHANGE_SEVERITY' | 'ASSIGN_ROLE';
  enabled: boolean;
}

export interface NotificationSettings {
  id: string;
  pushEnabled: boolean;
  severityFilter: Severity[];
  quietHours: { start: string; end: string; timeZone: string } | null;
  channels: string[];
}

export const MY_INCIDENTS = operation<{ myIncidents: IncidentSummary[] }, { limit: number }>(
  `query MyIncidents($limit: Int) { myIncidents(limit: $limit) { id title severity status lastUpdate } }`,
);

export const INCIDENT_PAGE = operation<{ incidentStatus: IncidentView | null; quickActions: Action[] }, { id: string }>(
  `query IncidentPage($id: ID!) {
    incidentStatus(id: $id) { id title severity status assignedTo { id role } responders { id role } lastUpdate warRoomLink alertsFiring }
    quickActions(incidentId: $id) { actionType enabled }
  }`,
);

export const DECLARE_INCIDENT = operation<
  { declareIncident: { id: string } },
  { input: { title: string; severity: Severity; description?: string; services?: string[]; visibility?: string } }
>(`mutation DeclareIncident($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }`);

export const ADD_NOTE = operation<{ addNote: { id: string } }, { incidentId: string; content: string }>(
  `mutation AddNote($incidentId: ID!, $content: String!) { addNote(incidentId: $incidentId, content: $content) { id } }`,
);

export const ASSIGN_ROLE = operation<{ assignRole: { id: string } }, { incidentId: string; role: RaciRole; userId: string }>(
  `mutation AssignRole($incidentId: ID!, $role: RACIRole!, $userId: ID!) { assignRole(incidentId: $incidentId, role: $role, userId: $userId) { id } }`,
);

export const ACK_INCIDENT = operation<{ ackIncident: { status: Status } }, { id: string }>(
  `mutation AckIncident($id: ID!) { ackIncident(id: $id) { status } }`,
);

const SETTINGS_FIELDS = 'id pushEnabled severityFilter quietHours { start end timeZone } channels';

export const NOTIFICATION_SETTINGS = operation<{ notificationSettings: NotificationSettings | null }>(
  `query NotificationSettings { notificationSettings { ${SETTINGS_FIELDS} } }`,
);

export const UPDATE_NOTIFICATION_SETTINGS = operation<
  { updateNotificationSettings: NotificationSettings },
  { input: Partial<Omit<NotificationSettings, 'id'>> }
>(`mutation UpdateNotificationSettings($input: NotificationPreferencesInput!) { updateNotificationSettings(input: $input) { ${SETTINGS_FIELDS} } }`);

export const CANCEL_INCIDENT = operation<{ cancelIncident: { status: Status } }, { incidentId: string }>(
  `mutation CancelIncident($incidentId: ID!) { cancelIncident(incidentId: $incidentId) { status } }`,
);

export const MARK_DUPLICATE = operation<{ markDuplicate: { status: Status } }, { incidentId: string; of: string }>(
  `mutation MarkDuplicate($incidentId: ID!, $of: ID!) { markDuplicate(incidentId: $incidentId, of: $of) { status } }`,
);

export interface OnCallShift {
  scheduleId: string;
  scheduleName: string;
  start: string;
  end: string;
}

export const MY_ON_CALL = operation<{ myOnCall: OnCallShift[] }>(`query MyOnCall { myOnCall { scheduleId scheduleName start end } }`);

export interface EscalationState {
  policyName: string;
  step: number;
  round: number;
  nextEscalationAt: string | null;
  exhausted: boolean;
  paged: string[];
}

/** Read apart from INCIDENT_PAGE: the incident page stands even where escalation cannot be read. */
export const INCIDENT_ESCALATION = operation<{ incidentStatus: { id: string; escalation: EscalationState | null } | null }, { id: string }>(
  `query IncidentEscalation($id: ID!) { incidentStatus(id: $id) { id escalation { policyName step round nextEscalationAt exhausted paged } } }`,
);

export const ESCALATE_INCIDENT = operation<{ escalateIncident: { status: Status } }, { incidentId: string }>(
  `mutation EscalateIncident($incidentId: ID!) { escalateIncident(incidentId: $incidentId) { status } }`,
);

export const ALL_OPERATIONS = [
  MY_INCIDENTS,
  INCIDENT_PAGE,
  DECLARE_INCIDENT,
  ADD_NOTE,
  ASSIGN_ROLE,
  ACK_INCIDENT,
  NOTIFICATION_SETTINGS,
  UPDATE_NOTIFICATION_SETTINGS,
  CANCEL_INCIDENT,
  MARK_DUPLICATE,
  MY_ON_CALL,
  INCIDENT_ESCALATION,
  ESCALATE_INCIDENT,
];
