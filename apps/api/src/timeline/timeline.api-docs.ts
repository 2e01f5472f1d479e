import { ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, apiDocs, ref } from '../diagnostics/api-docs.decorators';
import { TIMELINE_EXPORT_FORMATS } from './timeline-export.query';
import { DEFAULT_TIMELINE_LIMIT, MAX_TIMELINE_LIMIT, TIMELINE_ORDERS, TIMELINE_SEARCH_CRITERIA } from './timeline-filter';

/** The OpenAPI declaration of each timeline route; the controller only routes. */

const APPEND_ANSWER = {
  type: 'object',
  required: ['event_id', 'created', 'incident_id'],
  properties: { event_id: { type: 'string' }, created: { type: 'boolean' }, incident_id: { type: 'string' } },
};
const TIMELINE_EVENT_FIELDS = {
  ...Object.fromEntries(['id', 'incident_id', 'event_type', 'actor', 'title', 'content', 'source'].map((f) => [f, { type: 'string' }])),
  event_time: { type: 'string', format: 'date-time' },
  data: { type: 'object', additionalProperties: true, description: 'Event data without the title' },
  redacted: { type: 'array', items: { type: 'string' }, description: 'Field paths shown as "[REDACTED]" to this caller' },
};
const TIMELINE_EVENT = { type: 'object', required: Object.keys(TIMELINE_EVENT_FIELDS), properties: TIMELINE_EVENT_FIELDS };
const STORED_TIMELINE_EVENT = {
  type: 'object',
  required: [...TIMELINE_EVENT.required, 'created_at'],
  properties: { ...TIMELINE_EVENT_FIELDS, created_at: { type: 'string', format: 'date-time', description: 'When the ledger stored the event' } },
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

export const TimelineApiDocs = {
  controller: apiDocs(ApiTags('timeline'), ApiErrors(503)),

  append: apiDocs(
    ApiOperation({ summary: 'Append a CloudEvent (idempotent on source + im.origin_id and source + id); needs timeline.writer' }),
    ApiConsumes('application/cloudevents+json', 'application/json'),
    ApiBody({ schema: ref('CloudEvent') }),
    ApiResponse({ status: 201, description: 'A new event', schema: APPEND_ANSWER }),
    ApiResponse({ status: 200, description: 'A duplicate: the stored ids, created false', schema: APPEND_ANSWER }),
    ApiErrors(400, 404, 409, 413, 415),
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
    ApiOperation({ summary: 'The whole timeline as the caller may see it: JSON CloudEvents or Markdown; needs timeline.exporter' }),
    ApiQuery({ name: 'format', required: false, enum: [...TIMELINE_EXPORT_FORMATS] }),
    ApiResponse({
      status: 200,
      description: 'JSON (the default): an array of CloudEvents; Markdown: the audit layout',
      content: {
        'application/json': { schema: { type: 'array', items: ref('CloudEvent') } },
        'text/markdown': { schema: { type: 'string' } },
      },
    }),
    ApiErrors(400, 404),
  ),
};
