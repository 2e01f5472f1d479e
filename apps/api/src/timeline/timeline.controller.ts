import { BadRequestException, Body, Controller, Get, Param, Post, Query, Res, HttpCode, PayloadTooLargeException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { checkCloudEvent } from '@im/cloudevents';
import { ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { ApiErrors, ref } from '../diagnostics/api-docs.decorators';
import { type Principal, TIMELINE_ROLES } from '../auth/principal';
import { type AppendAnswer, TimelineAppendHandler } from './timeline-append.handler';
import { type TimelineEventView, toTimelineEventView } from './timeline-event.view';
import { INCIDENT_TIMELINE_PARAMS, parseTimelineFilter, QUERY_BODY_FIELDS } from './timeline-filter';
import { renderTimelineMarkdown } from './timeline-markdown';
import { type TimelinePage, TimelineReader } from './timeline-reader.service';

interface TimelineResponse {
  events: TimelineEventView[];
  next_cursor: string | null;
}

const QUERY_CRITERIA = ['correlation_key', 'fingerprint', 'incident_id', 'type', 'actor'];
const QUERY_FIELDS = new Set([...QUERY_CRITERIA, 'from_time', 'to_time', 'limit', 'cursor', 'order']);

const toResponse = (page: TimelinePage): TimelineResponse => ({
  events: page.entries.map(toTimelineEventView),
  next_cursor: page.nextCursor,
});

const asObject = (body: unknown): Record<string, unknown> => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestException('Request body must be a JSON object');
  }
  return body as Record<string, unknown>;
};

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

@ApiTags('timeline')
@ApiErrors(503)
@Controller('api/v1')
export class TimelineController {
  constructor(
    private readonly appender: TimelineAppendHandler,
    private readonly reader: TimelineReader,
  ) {}

  /** Structured-mode CloudEvent (application/cloudevents+json; plain application/json is accepted too). */
  @Post('timeline/events')
  @RequireRole(TIMELINE_ROLES.writer)
  @ApiOperation({ summary: 'Append a CloudEvent (idempotent on source + im.origin_id and source + id); needs timeline.writer' })
  @ApiConsumes('application/cloudevents+json', 'application/json')
  @ApiBody({ schema: ref('CloudEvent') })
  @ApiResponse({ status: 201, description: 'A new event', schema: APPEND_ANSWER })
  @ApiResponse({ status: 200, description: 'A duplicate: the stored ids, created false', schema: APPEND_ANSWER })
  @ApiErrors(400, 404, 409, 413, 415)
  async append(@Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<AppendAnswer> {
    const check = checkCloudEvent(body);
    if (!check.ok) {
      const message = `Invalid CloudEvent: ${check.errors.join('; ')}`;
      throw check.tooLarge ? new PayloadTooLargeException(message) : new BadRequestException(message);
    }
    const answer = await this.appender.append(check.event);
    void reply.status(answer.created ? 201 : 200);
    return answer;
  }

  @Get('timeline/events/:eventId')
  @RequireRole(TIMELINE_ROLES.reader)
  @ApiOperation({ summary: 'One event, after policy (withheld = 404); needs timeline.reader' })
  @ApiResponse({ status: 200, description: 'The event as read', schema: STORED_TIMELINE_EVENT })
  @ApiErrors(404)
  async event(@Param('eventId') eventId: string, @CurrentPrincipal() caller: Principal): Promise<TimelineEventView> {
    const shown = await this.reader.event(caller, eventId);
    return { ...toTimelineEventView(shown), created_at: shown.entry.createdAt };
  }

  @Get('incidents/:id/timeline')
  @RequireRole(TIMELINE_ROLES.reader)
  @ApiOperation({ summary: "An incident's events, filtered and keyset-paged; needs timeline.reader" })
  @ApiQuery({ name: 'type', required: false, type: String, description: 'Exact type or prefix ending in *, e.g. im.incident.*' })
  @ApiQuery({ name: 'from', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiQuery({ name: 'actor', required: false, type: String })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } })
  @ApiQuery({ name: 'cursor', required: false, type: String, description: 'next_cursor of the previous page' })
  @ApiQuery({ name: 'order', required: false, enum: ['asc', 'desc'], description: 'Default desc' })
  @ApiResponse({ status: 200, description: 'A page; next_cursor is null on the last', schema: TIMELINE_PAGE })
  @ApiErrors(400, 404)
  async incidentTimeline(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() caller: Principal,
  ): Promise<TimelineResponse> {
    const filter = parseTimelineFilter(query, INCIDENT_TIMELINE_PARAMS, { incidentId: id });
    return toResponse(await this.reader.incidentTimeline(caller, id, filter.query, filter.cursor));
  }

  @Post('timeline/query')
  @HttpCode(200)
  @RequireRole(TIMELINE_ROLES.reader)
  @ApiOperation({ summary: 'Search across incidents; needs timeline.reader and one of correlation_key, fingerprint, incident_id, type, actor' })
  @ApiBody({
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...Object.fromEntries(['correlation_key', 'fingerprint', 'incident_id', 'type', 'actor', 'cursor'].map((f) => [f, { type: 'string' }])),
        from_time: { type: 'string', format: 'date-time' },
        to_time: { type: 'string', format: 'date-time' },
        limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
        order: { type: 'string', enum: ['asc', 'desc'] },
      },
    },
  })
  @ApiResponse({ status: 200, description: 'A page, as the incident timeline', schema: TIMELINE_PAGE })
  @ApiErrors(400)
  async query(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<TimelineResponse> {
    const fields = asObject(body);
    const unknown = Object.keys(fields).filter((key) => !QUERY_FIELDS.has(key));
    // A misspelt filter would silently widen the search, so it is refused.
    if (unknown.length) throw new BadRequestException(`Unknown query field(s): ${unknown.join(', ')}`);
    if (!QUERY_CRITERIA.some((key) => fields[key] !== undefined)) {
      throw new BadRequestException(`At least one of ${QUERY_CRITERIA.join(', ')} is required`);
    }
    const filter = parseTimelineFilter(fields, QUERY_BODY_FIELDS);
    return toResponse(await this.reader.search(caller, filter.query, filter.cursor));
  }

  @Get('incidents/:id/timeline/export')
  @RequireRole(TIMELINE_ROLES.exporter)
  @ApiOperation({ summary: 'The whole timeline as the caller may see it: JSON CloudEvents or Markdown; needs timeline.exporter' })
  @ApiQuery({ name: 'format', required: false, enum: ['json', 'markdown'] })
  @ApiResponse({
    status: 200,
    description: 'JSON (the default): an array of CloudEvents; Markdown: the audit layout',
    content: {
      'application/json': { schema: { type: 'array', items: ref('CloudEvent') } },
      'text/markdown': { schema: { type: 'string' } },
    },
  })
  @ApiErrors(400, 404)
  async export(
    @Param('id') id: string,
    @Query('format') format: unknown,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    if (format !== undefined && format !== 'json' && format !== 'markdown') {
      throw new BadRequestException('format must be json or markdown');
    }
    const entries = (await this.reader.export(caller, id)).map((shown) => shown.entry);
    if (format === 'markdown') {
      void reply.header('content-type', 'text/markdown; charset=utf-8');
      return renderTimelineMarkdown(id, entries, new Date().toISOString());
    }
    return entries.map((entry) => entry.event);
  }
}
