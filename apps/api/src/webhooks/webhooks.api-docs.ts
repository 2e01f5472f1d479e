import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DATA_CLASSES, VISIBILITIES } from '@im/cloudevents';
import { WEBHOOK_DESCRIPTION_MAX_LENGTH, WEBHOOK_URL_MAX_LENGTH } from '@im/incidents';
import { ApiErrors, apiDocs, errorResponse } from '../http/api-docs.decorators';
import { TYPE_PATTERN } from '../timeline/timeline-filter';

/** The OpenAPI declaration of each webhook route; the controller only routes. */

const EVENT_TYPES = {
  type: 'array',
  minItems: 1,
  items: { type: 'string', pattern: TYPE_PATTERN.source },
  description: 'Type patterns as in the timeline filter: an exact type, a prefix ending in *, or *',
  example: ['im.incident.*'],
};
const CLEARANCE = { type: 'string', enum: [...VISIBILITIES], description: "Events above it are not sent (default internal); at most the registering admin's clearance" };
const DATA_ACCESS = {
  type: 'array',
  items: { type: 'string', enum: [...DATA_CLASSES] },
  description: "Data classes shown unredacted (default none); only classes in the registering admin's data_access",
};
const CREATE_BODY = {
  type: 'object',
  required: ['url', 'event_types'],
  properties: {
    url: { type: 'string', format: 'uri', maxLength: WEBHOOK_URL_MAX_LENGTH, example: 'https://hooks.example.com/incidents' },
    event_types: EVENT_TYPES,
    clearance: CLEARANCE,
    data_access: DATA_ACCESS,
    description: { type: 'string', nullable: true, maxLength: WEBHOOK_DESCRIPTION_MAX_LENGTH },
  },
};
const WEBHOOK_FIELDS = {
  id: { type: 'string', example: '3f9c2a7e5b1d8c04' },
  url: { type: 'string', format: 'uri' },
  event_types: EVENT_TYPES,
  clearance: CLEARANCE,
  data_access: DATA_ACCESS,
  description: { type: 'string', nullable: true },
  enabled: { type: 'boolean', description: 'false once the endpoint answered 410 Gone: nothing more is sent' },
  created_at: { type: 'string', format: 'date-time' },
};
const WEBHOOK = { type: 'object', required: Object.keys(WEBHOOK_FIELDS), properties: WEBHOOK_FIELDS };
const CREATED = {
  type: 'object',
  required: [...Object.keys(WEBHOOK_FIELDS), 'secret'],
  properties: {
    ...WEBHOOK_FIELDS,
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]+$', description: 'The signing secret (Standard Webhooks): shown this once' },
  },
};
const DELIVERY = {
  type: 'object',
  required: ['id', 'event_id', 'webhook_id', 'attempt', 'attempted_at', 'status_code', 'error', 'duration_ms'],
  properties: {
    id: { type: 'string', description: 'The delivery (attempt) id, for a retry' },
    event_id: { type: 'string', description: 'The CloudEvent id: the append answer event_id' },
    webhook_id: { type: 'string', description: 'The webhook-id header sent: the same on every attempt of the event' },
    attempt: { type: 'integer', minimum: 1, description: 'From 1 per event and registration, manual retries included' },
    attempted_at: { type: 'string', format: 'date-time' },
    status_code: { type: 'integer', nullable: true, description: 'null when no answer came' },
    error: {
      type: 'string',
      nullable: true,
      description: 'null on success; else e.g. unsuccessful_status, timeout, blocked_address, econnrefused',
    },
    duration_ms: { type: 'integer', minimum: 0 },
  },
};
const ID = ApiParam({ name: 'id', schema: { type: 'string' } });

export const WebhooksApiDocs = {
  controller: apiDocs(ApiTags('webhooks')),
  ID,
  WEBHOOK,

  create: apiDocs(
    ApiOperation({ summary: 'Register a webhook: the events appended from now on are sent to it, signed (Standard Webhooks); needs webhooks.admin' }),
    ApiBody({ schema: CREATE_BODY }),
    ApiResponse({ status: 201, description: 'The registration, with its signing secret shown this once', schema: CREATED }),
    ApiResponse({ status: 403, ...errorResponse("Without webhooks.admin, or a clearance (the default internal included) or data class above the admin's own") }),
    ApiErrors(400, 413, 415),
  ),

  list: apiDocs(
    ApiOperation({ summary: 'Every webhook registration, oldest first; never the secret; needs webhooks.admin' }),
    ApiResponse({ status: 200, description: 'The registrations', schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: WEBHOOK } } } }),
  ),

  get: apiDocs(
    ApiOperation({ summary: 'One webhook registration, without its secret; needs webhooks.admin' }),
    ID,
    ApiResponse({ status: 200, description: 'The registration', schema: WEBHOOK }),
    ApiErrors(404),
  ),

  deliveries: apiDocs(
    ApiOperation({ summary: 'The delivery log: one entry per attempt, newest first (the latest 100); needs webhooks.admin' }),
    ID,
    ApiResponse({ status: 200, description: 'The attempts', schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: DELIVERY } } } }),
    ApiErrors(404),
  ),

  retry: apiDocs(
    ApiOperation({ summary: 'Send that delivery\'s event again, with the same webhook-id; needs webhooks.admin' }),
    ID,
    ApiParam({ name: 'delivery_id', schema: { type: 'string' } }),
    ApiResponse({ status: 202, description: 'Queued: the attempt appears in the delivery log' }),
    ApiErrors(404, 409),
  ),

  remove: apiDocs(
    ApiOperation({ summary: 'Remove a webhook registration: deliveries stop; needs webhooks.admin' }),
    ID,
    ApiResponse({ status: 204, description: 'Removed' }),
    ApiErrors(404),
  ),
};
