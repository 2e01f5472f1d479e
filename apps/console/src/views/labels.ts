import type { Severity, Status } from '../api/documents';

/** How the console names things: severities and statuses as responders say them, and event types in words. */

export const severityLabel = (severity: Severity | string) => severity.replace('_', '-');
export const statusLabel = (status: Status | string) => status.toLowerCase();

const EVENT_LABELS: Record<string, string> = {
  'im.incident.declare': 'Declared',
  'im.incident.ack': 'Acknowledged',
  'im.incident.mitigate': 'Mitigated',
  'im.incident.resolve': 'Resolved',
  'im.incident.close': 'Closed',
  'im.incident.cancel': 'Canceled',
  'im.incident.duplicate': 'Marked duplicate',
  'im.paging.page': 'Paged',
  'im.paging.escalate': 'Escalated',
  'im.paging.exhausted': 'Escalation exhausted',
  'im.incident.note': 'Note',
  'im.incident.role_assigned': 'Role assigned',
  'im.incident.severity': 'Severity changed',
  'im.alert.trigger': 'Alert firing',
  'im.alert.resolve': 'Alert resolved',
};

export const eventLabel = (type: string) => EVENT_LABELS[type] ?? type;

export const formatTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
