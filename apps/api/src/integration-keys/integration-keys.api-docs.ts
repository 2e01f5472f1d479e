import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { INTEGRATION_KEY_NAME_MAX_LENGTH, INTEGRATION_KEY_PATTERN, INTEGRATION_KEY_ROLES } from '@im/incidents';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';

/** The OpenAPI declaration of each integration-key route; the controller only routes. */

const ROLES = { type: 'array', minItems: 1, items: { type: 'string', enum: [...INTEGRATION_KEY_ROLES] } };
const CREATE_BODY = {
  type: 'object',
  required: ['name', 'roles'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: INTEGRATION_KEY_NAME_MAX_LENGTH, example: 'alertmanager-prod' },
    roles: ROLES,
    service_id: { type: 'string', description: "An existing service (else 400): the key's alerts open incidents of that service" },
  },
};
/** What the create answer and the list both show of a key. */
const KEY_FIELDS = {
  id: { type: 'string', example: '3f9c2a7e5b1d8c04' },
  name: { type: 'string' },
  roles: ROLES,
  created_at: { type: 'string', format: 'date-time' },
  service_id: { type: 'string', nullable: true, description: 'The service the key belongs to; null: none' },
};
const CREATED = {
  type: 'object',
  required: [...Object.keys(KEY_FIELDS), 'key'],
  properties: {
    ...KEY_FIELDS,
    key: { type: 'string', pattern: INTEGRATION_KEY_PATTERN.source, description: 'The secret: shown this once, only its hash is kept' },
  },
};
const KEY = {
  type: 'object',
  required: [...Object.keys(KEY_FIELDS), 'created_by', 'revoked_at', 'revoked_by'],
  properties: {
    ...KEY_FIELDS,
    created_by: { type: 'string', description: 'The administrator who created it' },
    revoked_at: { type: 'string', format: 'date-time', nullable: true, description: 'null while the key is valid' },
    revoked_by: { type: 'string', nullable: true },
  },
};
const LEDGER_EVENT = {
  type: 'object',
  required: ['specversion', 'id', 'source', 'type', 'time', 'data', 'recorded_at'],
  properties: {
    specversion: { type: 'string' },
    id: { type: 'string' },
    source: { type: 'string' },
    type: { type: 'string', enum: ['im.integration_key.created', 'im.integration_key.revoked'] },
    time: { type: 'string', format: 'date-time' },
    'im.actor': { type: 'string', description: 'The administrator' },
    data: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, name: { type: 'string' }, roles: ROLES },
      description: 'The key, without its hash (and never its secret)',
    },
    recorded_at: { type: 'string', format: 'date-time', description: 'When the ledger stored the event' },
  },
};

export const IntegrationKeysApiDocs = {
  controller: apiDocs(ApiTags('integration keys')),

  create: apiDocs(
    ApiOperation({ summary: 'Create an integration key (a long-lived bearer for a monitoring system); needs integrations.admin' }),
    ApiBody({ schema: CREATE_BODY }),
    ApiResponse({ status: 201, description: 'The new key, with its secret shown this once', schema: CREATED }),
    ApiErrors(400, 413, 415),
  ),

  list: apiDocs(
    ApiOperation({ summary: 'Every integration key, oldest first, revoked ones too; never the secret; needs integrations.admin' }),
    ApiResponse({ status: 200, description: 'The keys', schema: { type: 'array', items: KEY } }),
  ),

  revoke: apiDocs(
    ApiOperation({ summary: 'Revoke a key: refused (401) from the next request on; revoking again is 204 too; needs integrations.admin' }),
    ApiParam({ name: 'id', schema: { type: 'string' } }),
    ApiResponse({ status: 204, description: 'Revoked' }),
    ApiErrors(404),
  ),

  events: apiDocs(
    ApiOperation({ summary: 'The ledger of the integration-keys stream: every create and revoke, oldest first; needs integrations.admin' }),
    ApiResponse({ status: 200, description: 'The events', schema: { type: 'array', items: LEDGER_EVENT } }),
  ),
};
