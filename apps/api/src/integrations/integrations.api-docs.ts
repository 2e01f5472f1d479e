import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';
import { ALERTMANAGER_PAYLOAD_SCHEMA, GRAFANA_PAYLOAD_SCHEMA } from './alert-payload.schema';

/** The OpenAPI declaration of each alert receiver; the controller only routes. */

const RESULT = {
  type: 'object',
  required: ['index', 'status'],
  description:
    'Per alert, in order: stored (201) or a duplicate (200) with event_id, created and incident_id; a resolution of an alert that opened no incident (200, ignored, reason; nothing stored); or refused (400, 403, 404, 409, 413) with error',
  properties: {
    index: { type: 'integer', minimum: 0 },
    status: { type: 'integer' },
    event_id: { type: 'string' },
    created: { type: 'boolean' },
    incident_id: { type: 'string' },
    ignored: { type: 'boolean' },
    reason: { type: 'string' },
    error: { type: 'string' },
  },
};
const RESULTS = { type: 'object', required: ['results'], properties: { results: { type: 'array', items: RESULT } } };

const receiver = (sender: string, schema: object) =>
  apiDocs(
    ApiOperation({
      summary: `Take a ${sender} webhook payload: each alert becomes one ledger event (firing: im.alert.trigger, resolved: im.alert.resolve), idempotent on <fingerprint>@<startsAt>; needs timeline.writer`,
    }),
    ApiConsumes('application/json'),
    ApiBody({ schema }),
    ApiResponse({ status: 200, description: 'Every alert stored, found a duplicate, ignored or refused, once all are durably stored', schema: RESULTS }),
    ApiErrors(400, 413),
    ApiResponse({ status: 503, description: 'Cannot store now (storage, views behind, policy): send the payload again. Never 429', headers: { 'Retry-After': { description: 'Seconds', schema: { type: 'integer' } } } }),
  );

export const IntegrationsApiDocs = {
  controller: apiDocs(ApiTags('integrations')),
  alertmanager: receiver('Prometheus Alertmanager (version 4)', ALERTMANAGER_PAYLOAD_SCHEMA),
  grafana: receiver('Grafana alerting (version "1")', GRAFANA_PAYLOAD_SCHEMA),
};
