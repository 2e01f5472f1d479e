import { ApiBody, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { BATCH_MEDIA_TYPE, MAX_BATCH_EVENTS } from '@im/cloudevents';
import { ApiErrors, apiDocs, ref } from '../http/api-docs.decorators';
import { LEDGER_JWK } from '../ledger-proof/ledger.api-docs';
import { RELAY_ROLE } from './event-attribution';
import { TIMELINE_EXPORT_FORMATS } from './timeline-export.query';
import { DEFAULT_TIMELINE_LIMIT, MAX_TIMELINE_LIMIT, TIMELINE_ORDERS, TIMELINE_SEARCH_CRITERIA } from './timeline-filter';

/** The OpenAPI declaration of each timeline route; the controller only routes. */

const APPEND_ANSWER = {
  type: 'object',
  required: ['event_id', 'created', 'incident_id'],
  properties: { event_id: { type: 'string' }, created: { type: 'boolean' }, incident_id: { type: 'string' } },
};
/** One event's entry in a batch's answer (append-result.ts). */
const APPEND_RESULT: SchemaObject = {
  oneOf: [
    {
      type: 'object',
      required: ['index', 'status', ...APPEND_ANSWER.required],
      properties: { index: { type: 'integer' }, status: { type: 'integer', enum: [201, 200] }, ...APPEND_ANSWER.properties },
    },
    {
      type: 'object',
      required: ['index', 'status', 'error'],
      properties: { index: { type: 'integer' }, status: { type: 'integer', enum: [400, 403, 404, 409, 413] }, error: { type: 'string' } },
    },
  ],
};
const BATCH_ANSWER: SchemaObject = {
  type: 'object',
  required: ['results'],
  properties: { results: { type: 'array', items: APPEND_RESULT } },
};
/** The context attributes a binary-mode request carries as headers (extensions too: ce-imfingerprint, ...). */
const BINARY_MODE_HEADERS = ['ce-specversion', 'ce-id', 'ce-source', 'ce-type', 'ce-time', 'ce-subject'];
const TIMELINE_EVENT_FIELDS = {
  ...Object.fromEntries(['id', 'incident_id', 'event_type', 'actor', 'title', 'content', 'source'].map((f) => [f, { type: 'string' }])),
  event_time: { type: 'string', format: 'date-time' },
  data: { type: 'object', additionalProperties: true, description: 'Event data without the title and the sender' },
  redacted: { type: 'array', items: { type: 'string' }, description: 'Field paths shown as "[REDACTED]" to this caller' },
};
/** Not required: events stored before senders were recorded have none. */
const SENDER_FIELD = {
  type: 'string',
  description: `Who sent the event: the authenticated writer (a token's sub, or integration:<id>), recorded by the service; it differs from actor only for a writer with role ${RELAY_ROLE}. "[REDACTED]" wherever actor is`,
};
const TIMELINE_EVENT = { type: 'object', required: Object.keys(TIMELINE_EVENT_FIELDS), properties: { ...TIMELINE_EVENT_FIELDS, sender: SENDER_FIELD } };
const STORED_TIMELINE_EVENT = {
  type: 'object',
  required: [...TIMELINE_EVENT.required, 'created_at'],
  properties: { ...TIMELINE_EVENT.properties, created_at: { type: 'string', format: 'date-time', description: 'When the ledger stored the event' } },
};
const TIMELINE_PAGE = {
  type: 'object',
  required: ['events', 'next_cursor'],
  properties: { events: { type: 'array', items: TIMELINE_EVENT }, next_cursor: { type: 'string', nullable: true } },
};
const LIMIT = { type: 'integer', minimum: 1, maximum: MAX_TIMELINE_LIMIT, default: DEFAULT_TIMELINE_LIMIT };
const SEARCH_BODY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...Object.fromEntries([...TIMELINE_SEARCH_CRITERIA, 'cursor'].map((f) => [f, { type: 'string' }])),
    from_time: { type: 'string', format: 'date-time' },
    to_time: { type: 'string', format: 'date-time' },
    limit: LIMIT,
    order: { type: 'string', enum: [...TIMELINE_ORDERS] },
  },
};

const CHAIN = { type: 'string', enum: ['public', 'internal', 'restricted', 'confidential'] };
const SIGNED_HEAD = {
  type: 'object',
  required: ['incident_id', 'chain', 'n', 'hash', 'signed_at', 'kid', 'sig'],
  properties: {
    incident_id: { type: 'string' },
    chain: CHAIN,
    n: { type: 'integer' },
    hash: { type: 'string', nullable: true },
    signed_at: { type: 'string', format: 'date-time' },
    kid: { type: 'string' },
    sig: { type: 'string', description: 'base64url Ed25519 signature over the JCS of the head without sig' },
  },
};
const LEDGER_BUNDLE = {
  type: 'object',
  required: ['format', 'incident_id', 'events', 'head', 'keys'],
  properties: {
    format: { type: 'string', enum: ['im-ledger/1'] },
    incident_id: { type: 'string' },
    events: { type: 'array', items: ref('CloudEvent') },
    head: SIGNED_HEAD,
    keys: { type: 'array', items: LEDGER_JWK },
  },
};
const VERIFY_ANSWER = {
  type: 'object',
  required: ['intact', 'chain'],
  properties: {
    intact: { type: 'boolean' },
    chain: CHAIN,
    n: { type: 'integer', description: 'When intact: the events in the chain' },
    head: { type: 'string', nullable: true, description: "When intact: the last link's hash" },
    broken_at: {
      type: 'object',
      required: ['n', 'event_id', 'reason'],
      properties: { n: { type: 'integer' }, event_id: { type: 'string', nullable: true }, reason: { type: 'string' } },
    },
  },
};

export const TimelineApiDocs = {
  controller: apiDocs(ApiTags('timeline'), ApiErrors(503)),

  append: apiDocs(
    ApiOperation({
      summary:
        'Append CloudEvents in any content mode of the HTTP binding (idempotent on source + im.origin_id and source + id); needs timeline.writer',
      description:
        'Structured mode: one event as JSON (`application/cloudevents+json`, or `application/json` without `ce-specversion`). ' +
        'Binary mode: any other Content-Type (application/json included) with a `ce-specversion` header; attributes in percent-decoded `ce-<name>` headers, ' +
        'datacontenttype from Content-Type, the body is the data (a JSON body must be an object; any other is stored as data_base64). ' +
        `Batched mode (\`${BATCH_MEDIA_TYPE}\`): a JSON array of at most ${MAX_BATCH_EVENTS} structured events, answered 200 with one result per event. ` +
        'The spec-legal names imactor, imoriginid, imcorrelationkey, imfingerprint, imdataclass and imvisibility mean the im.* attributes. ' +
        `Every event records its sender (the caller); im.actor may name someone else only with role ${RELAY_ROLE} (403 otherwise).`,
      requestBody: {
        required: true,
        content: {
          'application/cloudevents+json': { schema: ref('CloudEvent') },
          'application/json': { schema: ref('CloudEvent') },
          [BATCH_MEDIA_TYPE]: { schema: { type: 'array', maxItems: MAX_BATCH_EVENTS, items: ref('CloudEvent') } },
          '*/*': { schema: { type: 'string', format: 'binary', description: "Binary mode: the event's data" } },
        },
      },
    }),
    ...BINARY_MODE_HEADERS.map((name) => ApiHeader({ name, required: false, schema: { type: 'string' }, description: `Binary mode: the ${name.slice(3)} attribute` })),
    ApiResponse({ status: 201, description: 'A new event', schema: APPEND_ANSWER }),
    ApiResponse({
      status: 200,
      description: 'A duplicate (the stored ids, created false), or the results of a batch, one per event in order',
      schema: { oneOf: [APPEND_ANSWER, BATCH_ANSWER] },
    }),
    ApiErrors(400, 403, 404, 409, 413, 415),
  ),

  event: apiDocs(
    ApiOperation({ summary: 'One event, after policy (withheld = 404); needs timeline.reader' }),
    ApiResponse({ status: 200, description: 'The event as read', schema: STORED_TIMELINE_EVENT }),
    ApiErrors(404),
  ),

  incidentTimeline: apiDocs(
    ApiOperation({ summary: "An incident's events, filtered and keyset-paged; needs timeline.reader" }),
    ApiQuery({ name: 'type', required: false, type: String, description: 'Exact type or prefix ending in *, e.g. im.incident.*' }),
    ApiQuery({ name: 'from', required: false, schema: { type: 'string', format: 'date-time' } }),
    ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date-time' } }),
    ApiQuery({ name: 'actor', required: false, type: String }),
    ApiQuery({ name: 'limit', required: false, schema: LIMIT }),
    ApiQuery({ name: 'cursor', required: false, type: String, description: 'next_cursor of the previous page' }),
    ApiQuery({ name: 'order', required: false, enum: [...TIMELINE_ORDERS], description: 'Default desc' }),
    ApiResponse({ status: 200, description: 'A page; next_cursor is null on the last', schema: TIMELINE_PAGE }),
    ApiErrors(400, 404),
  ),

  query: apiDocs(
    ApiOperation({ summary: `Search across incidents; needs timeline.reader and one of ${TIMELINE_SEARCH_CRITERIA.join(', ')}` }),
    ApiBody({ schema: SEARCH_BODY }),
    ApiResponse({ status: 200, description: 'A page, as the incident timeline', schema: TIMELINE_PAGE }),
    ApiErrors(400),
  ),

  export: apiDocs(
    ApiOperation({
      summary: 'The whole timeline as the caller may see it: JSON CloudEvents, Markdown, or the verifiable ledger bundle; needs timeline.exporter',
      description:
        "Each JSON event carries `im.ledger`, its link in the caller's chain (their clearance). `format=ledger` answers the bundle `npm run verify` checks; Markdown ends with the signed head.",
    }),
    ApiQuery({ name: 'format', required: false, enum: [...TIMELINE_EXPORT_FORMATS] }),
    ApiResponse({
      status: 200,
      description: 'JSON (the default): an array of CloudEvents; Markdown: the audit layout; ledger: the bundle',
      content: {
        'application/json': { schema: { oneOf: [{ type: 'array', items: ref('CloudEvent') }, LEDGER_BUNDLE] } },
        'text/markdown': { schema: { type: 'string' } },
      },
    }),
    ApiErrors(400, 404),
  ),

  verify: apiDocs(
    ApiOperation({ summary: "Recomputes the caller's chain of the incident from the stored events: intact, or the first event that breaks it; needs timeline.exporter" }),
    ApiResponse({ status: 200, description: 'The verdict', schema: VERIFY_ANSWER }),
    ApiErrors(404),
  ),
};
