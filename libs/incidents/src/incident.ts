export const SEVERITIES = ['SEV-1', 'SEV-2', 'SEV-3', 'SEV-4'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const STATUSES = ['open', 'acknowledged', 'mitigated', 'resolved', 'closed'] as const;
export type Status = (typeof STATUSES)[number];

export const TITLE_MAX_LENGTH = 500;
export const DESCRIPTION_MAX_LENGTH = 20_000;

export const INCIDENT_ID_PATTERN = /^INC-[0-9a-f]{8}$/;

export interface Incident {
  id: string;
  title: string;
  description?: string;
  severity: Severity;
  status: Status;
  /** RFC 3339 UTC, from the declaring event's time. */
  createdAt: string;
  /** RFC 3339 UTC, from the time of the last event that changed the incident. */
  updatedAt: string;
}

/** Write-side state: nothing until the incident is declared. */
export type IncidentState = Incident | undefined;

export const isSeverity = (value: unknown): value is Severity =>
  typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);

export const isStatus = (value: unknown): value is Status =>
  typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
