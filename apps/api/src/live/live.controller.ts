import { Controller, Get, Headers, Inject, Param, Query, Req, Res, UnauthorizedException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { TOKEN_EXPIRED, whenTokenExpires } from '../auth/token-expiry';
import { toIncidentResponse, withService } from '../incidents/incident.dto';
import { type LiveIncidentChange, LiveFeed, type LiveTimelineEvent } from './live-feed';
import { parseLiveResume } from './live-resume.query';
import type { LiveStream } from './live-stream';
import { LiveApiDocs } from './live.api-docs';
import { sseFrame, writeEventStream } from './sse-writer';

/** Subscribers of one kind and caller share an item: its frame is built once for all of them. */
function framedOnce<T extends object>(build: (item: T) => string): (item: T) => string {
  const frames = new WeakMap<T, string>();
  return (item) => {
    let frame = frames.get(item);
    if (frame === undefined) frames.set(item, (frame = build(item)));
    return frame;
  };
}

/**
 * How often a quiet stream sends its comment line: LIVE_HEARTBEAT_MS is the
 * longest a stream may stay quiet (15 s at most, as section 3 of the spec
 * says), so the line goes out a tenth earlier, by at most a second, lest timer
 * drift or a busy event loop stretch the gap past it.
 */
const heartbeatEvery = (quietMs: number) => quietMs - Math.min(1000, Math.ceil(quietMs / 10));

const timelineFrame = framedOnce<LiveTimelineEvent>((item) => sseFrame(item.cursor, 'timeline', item.event));
const incidentFrame = framedOnce<LiveIncidentChange>((item) => sseFrame(item.cursor, 'incident', withService(toIncidentResponse(item.incident), item.service)));

/**
 * A stream ends when its token expires, as a request with the token would then
 * be refused: `event: error` with `{error, status: 401}`, then it closes; the
 * client reconnects with a fresh token and its Last-Event-ID.
 */
async function writeUntilTokenExpiry<T extends object>(request: FastifyRequest, reply: FastifyReply, stream: LiveStream<T>, frame: (item: T) => string, heartbeatMs: number) {
  const cancel = whenTokenExpires(request.headers.authorization, () => stream.fail(new UnauthorizedException(TOKEN_EXPIRED)));
  try {
    await writeEventStream(request, reply, stream, frame, heartbeatMs);
  } finally {
    cancel();
  }
}

/** Server-sent events (docs/api.md, "Live streams"): the feed opens the stream, refusing before anything is sent; then it is written out. */
@LiveApiDocs.controller
@Controller('api/v1/incidents')
export class LiveController {
  constructor(
    private readonly feed: LiveFeed,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('stream')
  @LiveApiDocs.incidentStream
  async incidentStream(
    @Query() query: Record<string, unknown>,
    @Headers('last-event-id') lastEventId: unknown,
    @CurrentPrincipal() caller: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const stream = await this.feed.incidentChanges(caller, parseLiveResume(query, lastEventId));
    await writeUntilTokenExpiry(request, reply, stream, incidentFrame, heartbeatEvery(this.config.live.heartbeatMs));
  }

  @Get(':id/timeline/stream')
  @RequireRole(TIMELINE_ROLES.reader)
  @LiveApiDocs.timelineStream
  async timelineStream(
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Headers('last-event-id') lastEventId: unknown,
    @CurrentPrincipal() caller: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const stream = await this.feed.timeline(caller, id, parseLiveResume(query, lastEventId));
    await writeUntilTokenExpiry(request, reply, stream, timelineFrame, heartbeatEvery(this.config.live.heartbeatMs));
  }
}
