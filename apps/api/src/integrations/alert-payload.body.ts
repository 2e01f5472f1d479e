import Ajv, { type ErrorObject } from 'ajv';
import { parseTimestamp, TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import { ALERTMANAGER_PAYLOAD_SCHEMA, GRAFANA_PAYLOAD_SCHEMA } from './alert-payload.schema';

/** The monitoring systems whose webhooks the service takes; each names its events' source (im://<sender>/<receiver>). */
export type AlertSender = 'alertmanager' | 'grafana';

/** One alert of a payload, as the receivers read it (other fields are ignored). */
export interface Alert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** As received (any offset, up to nanoseconds): the alert's identity uses it verbatim. */
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

export interface AlertPayload {
  sender: AlertSender;
  receiver: string;
  alerts: Alert[];
}

const ajv = new Ajv({ allErrors: true, strict: true });
// The service's one timestamp parser: what it accepts here, it can order in the read models.
ajv.addFormat('date-time', { type: 'string', validate: (text: string) => parseTimestamp(text) !== undefined });

const SHAPES: Record<AlertSender, { name: string; validate: ReturnType<typeof ajv.compile<AlertPayload>> }> = {
  alertmanager: { name: 'an Alertmanager webhook payload (version 4)', validate: ajv.compile<AlertPayload>(ALERTMANAGER_PAYLOAD_SCHEMA) },
  grafana: { name: 'a Grafana webhook payload (version 1)', validate: ajv.compile<AlertPayload>(GRAFANA_PAYLOAD_SCHEMA) },
};

/** `/alerts/0/labels` → `alerts[0].labels`. */
const fieldOf = (instancePath: string) => instancePath.slice(1).split('/').reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');

function describe({ instancePath, keyword, params, message }: ErrorObject): string {
  const field = fieldOf(instancePath);
  switch (keyword) {
    case 'required':
      return `${field ? `${field}.` : ''}${params.missingProperty} is required`;
    case 'enum':
      return `${field} must be ${(params.allowedValues as string[]).map((value) => `"${value}"`).join(' or ')}`;
    case 'format':
      return `${field} must be ${TIMESTAMP_RULE}`;
    case 'minLength':
      return `${field} must not be empty`;
    default:
      return `${field || 'the body'} ${message}`;
  }
}

function parse(sender: AlertSender, body: unknown): AlertPayload {
  const { name, validate } = SHAPES[sender];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidError(`The body must be ${name}, a JSON object`);
  if (!validate(body)) throw new InvalidError(`Not ${name}: ${[...new Set((validate.errors ?? []).map(describe))].join('; ')}`);
  const { receiver, alerts } = body as AlertPayload;
  return {
    sender,
    receiver,
    alerts: alerts.map(({ status, labels, annotations, startsAt, endsAt, generatorURL, fingerprint }) => ({ status, labels, annotations, startsAt, endsAt, generatorURL, fingerprint })),
  };
}

/** POST /api/v1/integrations/alertmanager: the payload as Alertmanager sends it, else InvalidError (400). */
export const parseAlertmanagerPayload = (body: unknown): AlertPayload => parse('alertmanager', body);

/** POST /api/v1/integrations/grafana: Grafana's payload, else InvalidError (400). */
export const parseGrafanaPayload = (body: unknown): AlertPayload => parse('grafana', body);
