import { Body, Controller, Get, Headers, Param, Post, Query, Res, HttpCode } from '@nestjs/common';
import type { HttpHeaders } from '@im/cloudevents';
import type { FastifyReply } from 'fastify';
import { type TimelineEventView, toTimelineEventView } from '@im/read-models';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import { AcceptsIntegrationKey, CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { type AppendAnswer, TimelineAppendHandler } from '@im/timeline-append';
import { appendBatch, type AppendResult } from './append-result';
import { parseAppendRequest } from './cloud-event.body';
import { attributed, attributedItem } from './event-attribution';
import { parseTimelineExportFormat } from './timeline-export.query';
import { type TimelineExportAnswer, TimelineExports } from './timeline-export.service';
import { parseIncidentTimelineQuery, parseTimelineSearch } from './timeline-filter';
import { LedgerExports, type VerifyAnswer } from '../ledger-proof/ledger-exports';
import { TimelineReader } from './timeline-reader.service';
import { timelinePageJson } from './timeline-page.response';
import { TimelineApiDocs } from './timeline.api-docs';

@TimelineApiDocs.controller
@Controller('api/v1')
export class TimelineController {
  constructor(
    private readonly appender: TimelineAppendHandler,
    private readonly reader: TimelineReader,
    private readonly ledger: LedgerExports,
    private readonly exports: TimelineExports,
  ) {}

  /** A CloudEvent in any content mode of the HTTP binding: structured, binary or a batch (200 with one result per event). */
  @Post('timeline/events')
  @RequireRole(TIMELINE_ROLES.writer)
  @AcceptsIntegrationKey()
  @TimelineApiDocs.append
  async append(
    @Body() body: unknown,
    @Headers() headers: HttpHeaders,
    @CurrentPrincipal() writer: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AppendAnswer | { results: AppendResult[] }> {
    const request = parseAppendRequest(headers, body);
    if (request.mode === 'batch') {
      void reply.status(200);
      return { results: await appendBatch(request.batch.map((item) => attributedItem(item, writer)), (event) => this.appender.append(event)) };
    }
    const answer = await this.appender.append(attributed(request.event, writer));
    void reply.status(answer.created ? 201 : 200);
    return answer;
  }

  @Get('timeline/events/:eventId')
  @RequireRole(TIMELINE_ROLES.reader)
  @TimelineApiDocs.event
  async event(@Param('eventId') eventId: string, @CurrentPrincipal() caller: Principal): Promise<TimelineEventView> {
    const shown = await this.reader.event(caller, eventId);
    return { ...toTimelineEventView(shown), created_at: shown.entry.createdAt };
  }

  @Get('incidents/:id/timeline')
  @RequireRole(TIMELINE_ROLES.reader)
  @TimelineApiDocs.incidentTimeline
  async incidentTimeline(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const filter = parseIncidentTimelineQuery(query, id);
    return timelinePageJson(reply, await this.reader.incidentTimeline(caller, id, filter.query, filter.cursor));
  }

  @Post('timeline/query')
  @HttpCode(200)
  @RequireRole(TIMELINE_ROLES.reader)
  @TimelineApiDocs.query
  async query(@Body() body: unknown, @CurrentPrincipal() caller: Principal, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const filter = parseTimelineSearch(body);
    return timelinePageJson(reply, await this.reader.search(caller, filter.query, filter.cursor));
  }

  @Get('incidents/:id/timeline/export')
  @RequireRole(TIMELINE_ROLES.exporter)
  @TimelineApiDocs.export
  async export(
    @Param('id') id: string,
    @Query('format') format: unknown,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TimelineExportAnswer['body']> {
    const answer = await this.exports.export(caller, id, parseTimelineExportFormat(format));
    if (answer.contentType) void reply.header('content-type', answer.contentType);
    return answer.body;
  }

  /** Recomputes the caller's chain of the incident from the stored events. */
  @Get('incidents/:id/timeline/verify')
  @RequireRole(TIMELINE_ROLES.exporter)
  @TimelineApiDocs.verify
  verify(@Param('id') id: string, @CurrentPrincipal() caller: Principal): Promise<VerifyAnswer> {
    return this.ledger.verify(caller, id);
  }
}
