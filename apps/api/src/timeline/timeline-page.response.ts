import type { FastifyReply } from 'fastify';
import type { TimelineEventView } from '@im/read-models';
import type { TimelinePage } from './timeline-reader.service';

/** A page of timeline events as answered (interface.md). */
export interface TimelinePageResponse {
  events: TimelineEventView[];
  next_cursor: string | null;
}

/** What Fastify sends with an object it serialises: the page answers with the same. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A page's answer: the UTF-8 of exactly `JSON.stringify` of its
 * TimelinePageResponse. Each event's view is written in as the reader has
 * it, so an event shown unredacted goes out as the read model stored it,
 * never parsed nor serialised again (most of a large page's cost). Encoded
 * here, once: Fastify would measure a string and then encode it.
 */
export function timelinePageJson(reply: FastifyReply, page: TimelinePage): Buffer {
  void reply.header('content-type', JSON_CONTENT_TYPE);
  return Buffer.from(`{"events":[${page.shown.map((s) => s.viewJson).join(',')}],"next_cursor":${JSON.stringify(page.nextCursor)}}`);
}
