/**
 * The webhook payloads the alert receivers take, as JSON Schemas (draft-07
 * keywords that OpenAPI 3.0 also reads): the parser checks a body with them
 * and the OpenAPI document publishes them. Only what a receiver reads is
 * required; other fields are checked when present, and unknown ones ignored.
 */

const TEXT_MAP = { type: 'object', additionalProperties: { type: 'string' } } as const;
const TIMESTAMP = { type: 'string', format: 'date-time' } as const;
const TEXT = { type: 'string' } as const;
const ALERT_STATUS = { type: 'string', enum: ['firing', 'resolved'] } as const;

const alertSchema = (extra: Record<string, unknown>) => ({
  type: 'object',
  required: ['status', 'labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL', 'fingerprint'],
  properties: {
    status: ALERT_STATUS,
    labels: TEXT_MAP,
    annotations: TEXT_MAP,
    startsAt: TIMESTAMP,
    endsAt: { ...TIMESTAMP, description: 'Go\'s zero time "0001-01-01T00:00:00Z" while the alert fires' },
    generatorURL: TEXT,
    fingerprint: { type: 'string', minLength: 1 },
    ...extra,
  },
});

const payloadSchema = (title: string, version: string, alert: Record<string, unknown>, extra: Record<string, unknown>) => ({
  title,
  type: 'object',
  required: ['version', 'receiver', 'status', 'alerts'],
  properties: {
    version: { type: 'string', enum: [version] },
    receiver: { type: 'string', minLength: 1 },
    status: ALERT_STATUS,
    alerts: { type: 'array', items: alert, description: 'Each alert becomes one ledger event, by its own status' },
    groupLabels: TEXT_MAP,
    commonLabels: TEXT_MAP,
    commonAnnotations: TEXT_MAP,
    externalURL: TEXT,
    groupKey: TEXT,
    truncatedAlerts: { type: 'integer', minimum: 0 },
    ...extra,
  },
});

/** Prometheus Alertmanager's webhook payload, version 4 (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config). */
export const ALERTMANAGER_PAYLOAD_SCHEMA = payloadSchema('AlertmanagerWebhook', '4', alertSchema({}), {});

/**
 * Grafana alerting's webhook contact point payload: Alertmanager's envelope
 * with Grafana's extra fields and its own version "1" (grafana/alerting
 * receivers/webhook/v1/webhook.go, templates/template_data.go).
 */
export const GRAFANA_PAYLOAD_SCHEMA = payloadSchema(
  'GrafanaWebhook',
  '1',
  alertSchema({
    silenceURL: TEXT,
    dashboardURL: TEXT,
    panelURL: TEXT,
    values: { type: 'object', nullable: true, additionalProperties: { type: 'number' } },
    valueString: TEXT,
    imageURL: TEXT,
    orgId: { type: 'integer' },
  }),
  { orgId: { type: 'integer' }, title: TEXT, state: TEXT, message: TEXT },
);
