import { type CloudEvent, parseTimestamp } from '@im/cloudevents';
import { ALERT_RESOLVE_TYPE, ALERT_TRIGGER_TYPE, DEFAULT_ALERT_SEVERITY, type Severity, TITLE_MAX_LENGTH } from '@im/incidents';
import type { Alert, AlertSender } from './alert-payload.body';

/** labels.severity as Prometheus rules usually spell it (any case); anything else, or none, is the alert default. */
const SEVERITY_BY_LABEL = new Map<string, Severity>([
  ['critical', 'SEV-1'],
  ['error', 'SEV-2'],
  ['high', 'SEV-2'],
  ['warning', 'SEV-3'],
  ['info', 'SEV-4'],
]);

const nonBlank = (text: string | undefined) => (text !== undefined && text.trim() !== '' ? text.trim() : undefined);

/** The event's source: the receiver's name, percent-encoded so that any name makes a valid URI. */
export const alertSource = (sender: AlertSender, receiver: string) => `im://${sender}/${encodeURIComponent(receiver)}`;

/**
 * One alert of a webhook payload as the ledger event it becomes: a trigger or
 * a resolve by the alert's own status, routed by its fingerprint, and
 * idempotent on `<fingerprint>@<startsAt>` (Alertmanager repeats that
 * string byte for byte in every re-send and retry). `time` is when the alert
 * started (a trigger) or ended (a resolve), in UTC.
 */
export function alertEvent(alert: Alert, sender: AlertSender, receiver: string, id: string): CloudEvent {
  const { status, startsAt, endsAt, fingerprint } = alert;
  const resolved = status === 'resolved';
  return {
    specversion: '1.0',
    id,
    source: alertSource(sender, receiver),
    type: resolved ? ALERT_RESOLVE_TYPE : ALERT_TRIGGER_TYPE,
    // The parser accepted both timestamps, so each has its UTC form.
    time: parseTimestamp(resolved ? endsAt : startsAt)!,
    'im.fingerprint': fingerprint,
    'im.origin_id': `${fingerprint}@${startsAt}${resolved ? ':resolved' : ''}`,
    data: alertData(alert),
  };
}

/**
 * The event's data. Built property by property: conditional spreads
 * (`...(title ? { title } : {})`) cost Node 20 microseconds per alert here,
 * and an alert storm makes thousands of these a second.
 */
function alertData({ labels, annotations, generatorURL, startsAt, endsAt }: Alert): Record<string, unknown> {
  const title = nonBlank(annotations.summary) ?? nonBlank(labels.alertname);
  const service = nonBlank(labels.service) ?? nonBlank(labels.job);
  const data: Record<string, unknown> = {};
  if (title !== undefined) data.title = title.slice(0, TITLE_MAX_LENGTH);
  data.severity = SEVERITY_BY_LABEL.get(labels.severity?.toLowerCase() ?? '') ?? DEFAULT_ALERT_SEVERITY;
  // One name under the seed's data key, which redaction keeps (events stored before this carry `services: [name]`).
  if (service !== undefined) data.service = service;
  data.labels = labels;
  data.annotations = annotations;
  data.generatorURL = generatorURL;
  data.startsAt = startsAt;
  data.endsAt = endsAt;
  return data;
}
