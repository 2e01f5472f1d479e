export const SEVERITIES = ['SEV-1', 'SEV-2', 'SEV-3', 'SEV-4'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** `canceled` and `duplicate` are final: an incident in either is over (docs/decisions.md, "Cancel, duplicate and the escalation state"). */
export const STATUSES = ['open', 'acknowledged', 'mitigated', 'resolved', 'closed', 'canceled', 'duplicate'] as const;
export type Status = (typeof STATUSES)[number];

export const TITLE_MAX_LENGTH = 500;
export const DESCRIPTION_MAX_LENGTH = 20_000;

export const INCIDENT_ID_PATTERN = /^INC-[0-9a-f]{8}$/;

/** RACI roles a responder can hold on an incident; one person per role. */
export const RACI_ROLES = ['IC', 'OPS', 'COMMS', 'SECURITY', 'PRIVACY'] as const;
export type RaciRole = (typeof RACI_ROLES)[number];

export const isRaciRole = (value: unknown): value is RaciRole =>
  typeof value === 'string' && (RACI_ROLES as readonly string[]).includes(value);

export interface Incident {
  id: string;
  title: string;
  description?: string;
  severity: Severity;
  status: Status;
  /** RFC 3339 UTC: when the ledger recorded the declaration (readers fold with the recorded time). */
  createdAt: string;
  /** RFC 3339 UTC: when the ledger recorded the last change. */
  updatedAt: string;
  /** Who holds which RACI role (user ids from token `sub`). */
  roles?: Partial<Record<RaciRole, string>>;
  services?: string[];
  labels?: Record<string, string>;
  /**
   * The visibility the incident was declared with (im.visibility of the event
   * that opened it), if any: callers whose clearance ranks below it do not see
   * the incident at all. Without one, everyone who may use the incident endpoints sees it.
   */
  visibility?: string;
  /**
   * Fingerprints of the incident's alerts that are firing now, in the order
   * they fired (kept by the incident read model, incident.projection.ts).
   * Absent: none.
   */
  firingAlerts?: string[];
  /** The incident this one duplicates (status `duplicate`); its alerts go there. */
  duplicateOf?: string;
  /** Paging, for an incident that belongs to a service (im.incident.service_assigned); absent otherwise. */
  escalation?: EscalationState;
}

/**
 * Where paging of an incident stands, folded from im.incident.service_assigned
 * and im.paging.* (oncall/escalation.ts reads it against the policy).
 */
export interface EscalationState {
  serviceId: string;
  /** The service's escalation policy when the incident opened; null: none, nothing is paged. */
  policyId: string | null;
  /** The step paged last, from 1; 0 before the first page. */
  step: number;
  /** The round of that page, from 1; 0 before the first page. */
  round: number;
  /** When the ledger recorded the last page; null before the first. */
  pagedAt: string | null;
  /** The users the last page paged. */
  paged: string[];
  /** The last step of the last round fell due with no one acknowledging: nothing more is paged. */
  exhausted: boolean;
}

/** Write-side state: nothing until the incident is declared. */
export type IncidentState = Incident | undefined;

export const isSeverity = (value: unknown): value is Severity =>
  typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);

export const isStatus = (value: unknown): value is Status =>
  typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
