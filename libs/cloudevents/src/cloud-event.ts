/** A CloudEvents v1.0 event in structured JSON mode, with the service's `im.*` extensions. */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time: string;
  subject?: string;
  datacontenttype?: string;
  data?: Record<string, unknown>;
  /** Data of a non-JSON datacontenttype, as base64. */
  data_base64?: string;
  'im.actor'?: string;
  'im.origin_id'?: string;
  'im.correlation_key'?: string;
  'im.fingerprint'?: string;
  'im.data_class'?: string[];
  'im.visibility'?: string;
}

/** Source of the events the service itself appends for REST and GraphQL commands. */
export const SERVICE_SOURCE = 'im://incident-service';

const SUBJECT_PREFIX = 'incident/';

export const incidentSubject = (incidentId: string): string => `${SUBJECT_PREFIX}${incidentId}`;

export const incidentIdOfSubject = (subject: string | undefined): string | undefined =>
  subject?.startsWith(SUBJECT_PREFIX) ? subject.slice(SUBJECT_PREFIX.length) : undefined;
