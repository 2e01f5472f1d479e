import { BadRequestException, Body, Controller, Get, Param, Post, Query, Res, HttpCode, PayloadTooLargeException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { checkCloudEvent } from '@im/cloudevents';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
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

@Controller('api/v1')
export class TimelineController {
  constructor(
    private readonly appender: TimelineAppendHandler,
    private readonly reader: TimelineReader,
  ) {}

  /** Structured-mode CloudEvent (application/cloudevents+json; plain application/json is accepted too). */
  @Post('timeline/events')
  @RequireRole(TIMELINE_ROLES.writer)
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
  async event(@Param('eventId') eventId: string, @CurrentPrincipal() caller: Principal): Promise<TimelineEventView> {
    const shown = await this.reader.event(caller, eventId);
    return { ...toTimelineEventView(shown), created_at: shown.entry.createdAt };
  }

  @Get('incidents/:id/timeline')
  @RequireRole(TIMELINE_ROLES.reader)
  async incidentTimeline(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() caller: Principal,
  ): Promise<TimelineResponse> {
    const filter = parseTimelineFilter(query, INCIDENT_TIMELINE_PARAMS, { incidentId: id });
    return toResponse(await this.reader.incidentTimeline(caller, id, filter));
  }

  @Post('timeline/query')
  @HttpCode(200)
  @RequireRole(TIMELINE_ROLES.reader)
  async query(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<TimelineResponse> {
    const fields = asObject(body);
    const unknown = Object.keys(fields).filter((key) => !QUERY_FIELDS.has(key));
    // A misspelt filter would silently widen the search, so it is refused.
    if (unknown.length) throw new BadRequestException(`Unknown query field(s): ${unknown.join(', ')}`);
    if (!QUERY_CRITERIA.some((key) => fields[key] !== undefined)) {
      throw new BadRequestException(`At least one of ${QUERY_CRITERIA.join(', ')} is required`);
    }
    return toResponse(await this.reader.search(caller, parseTimelineFilter(fields, QUERY_BODY_FIELDS)));
  }

  @Get('incidents/:id/timeline/export')
  @RequireRole(TIMELINE_ROLES.exporter)
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
