import { ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';
import { PUBLISHED_SCHEMAS, SCHEMA_FORMATS } from './published-schemas';
import { MAX_SIMULATED_EVENTS } from './simulation.body';

/** The OpenAPI declaration of each diagnostics route; the controller only routes. */

const TEXT = { type: 'string' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;
const object = (properties: Record<string, object>, extra: object = {}) => ({ type: 'object', required: Object.keys(properties), properties, ...extra });

const VALIDATION_REPORT = object({
  timestamp: { type: 'string', format: 'date-time' },
  version: TEXT,
  capabilities: object(Object.fromEntries(['database', 'timeline', 'websocket', 'sse', 'graphql'].map((c) => [c, { type: 'boolean' }]))),
  results: {
    type: 'array',
    items: object({ component: TEXT, check: TEXT, status: { type: 'string', enum: ['pass', 'fail', 'warn'] }, message: TEXT, duration: { type: 'string', example: '1.25ms' } }),
  },
  summary: object({ total: COUNT, passed: COUNT, failed: COUNT, warned: COUNT }),
});

const SIMULATION_REQUEST = {
  type: 'object',
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      maxItems: MAX_SIMULATED_EVENTS,
      // Not the CloudEvent schema: an event that fails validation is reported in errors, not refused, and legacy types (incident.trigger) are accepted.
      items: { type: 'object', additionalProperties: true, description: 'A CloudEvent (see the CloudEvent schema)' },
    },
    dry_run: { type: 'boolean', default: true },
  },
};

const SIMULATION_REPORT = object({
  timestamp: { type: 'string', format: 'date-time' },
  dry_run: { type: 'boolean' },
  events_read: COUNT,
  events_created: {
    type: 'array',
    items: object({ id: TEXT, type: TEXT, source: TEXT, subject: TEXT, time: TEXT, would_create: { type: 'string', enum: ['incident', 'timeline_event', 'nothing'] } }),
  },
  errors: {
    type: 'array',
    items: { type: 'object', required: ['index', 'error'], properties: { index: COUNT, id: TEXT, error: TEXT } },
  },
});

/** Any JSON object: an OpenAPI document or a JSON Schema. */
const JSON_DOCUMENT = { type: 'object', additionalProperties: true } as const;

export const DiagnosticsApiDocs = {
  controller: apiDocs(ApiTags('diagnostics')),

  validate: apiDocs(
    ApiOperation({
      summary: 'Checks every part of the deployment, each timed; self_test=true adds a write-project-read round trip (it appends a probe event, so it needs timeline.writer)',
    }),
    ApiQuery({ name: 'self_test', required: false, enum: ['true', 'false'] }),
    ApiResponse({ status: 200, description: 'The report; failing checks are listed with status "fail"', schema: VALIDATION_REPORT }),
    ApiErrors(400, 401, 403),
  ),

  simulate: apiDocs(
    ApiOperation({
      summary: 'Runs events through validation and the decider against the stored state the caller could read (duplicates and fingerprint joins: timeline.reader, as the policy shows them); writes nothing',
    }),
    ApiBody({ schema: SIMULATION_REQUEST }),
    ApiResponse({ status: 200, description: 'What each event would do; invalid events are listed in errors with their index', schema: SIMULATION_REPORT }),
    ApiErrors(400, 413, 415, 503),
  ),

  schema: apiDocs(
    ApiOperation({ summary: 'The JSON Schemas the service validates with, as JSON Schema or OpenAPI components' }),
    ApiQuery({ name: 'type', required: false, enum: Object.keys(PUBLISHED_SCHEMAS), description: 'Default incident' }),
    ApiQuery({ name: 'format', required: false, enum: [...SCHEMA_FORMATS], description: 'Default openapi' }),
    ApiResponse({ status: 200, description: 'An OpenAPI 3.0 document with the schemas as components, or the JSON Schema (draft 2020-12)', schema: JSON_DOCUMENT }),
    ApiErrors(400),
  ),

  openapi: apiDocs(ApiOperation({ summary: 'This OpenAPI 3.0 document' }), ApiResponse({ status: 200, description: 'The document', schema: JSON_DOCUMENT })),

  unimplemented: apiDocs(
    ApiErrors(404),
    ApiOperation({ summary: 'Planned in the seed contract, not offered in this version: answers 404 by contract', deprecated: true }),
  ),
};
