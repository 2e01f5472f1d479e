import { Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { classify } from '../errors/error-mapping';
import { type LiveStream, SlowConsumerError } from './live-stream';

/** One server-sent event: `id`, `event` and one `data` line of JSON (JSON text holds no raw line break). */
export const sseFrame = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const HEARTBEAT = ': keep-alive\n\n';

const logger = new Logger('ServerSentEvents');

/** Resolves when the socket can take more, the client is gone, or the stream has ended. */
function writable(res: ServerResponse, stream: LiveStream<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    void stream.ended.then(done);
  });
}

/**
 * Sends a live stream as `text/event-stream` on the hijacked reply, from the
 * first item to its end. Everything that can refuse the request (auth, cursor,
 * PDP, not found) has run before: from here the status is 200. The comment
 * line every `heartbeatMs` keeps proxies from closing a quiet stream. A
 * client gone ends the subscription; a stream that fails sends `event: error`
 * with `{error, status}` and closes, except for a consumer too slow to read
 * it, whose connection is cut (its socket is full) so that it reconnects.
 */
export async function writeEventStream<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  stream: LiveStream<T>,
  frame: (item: T) => string,
  heartbeatMs: number,
): Promise<void> {
  void reply.hijack();
  const res = reply.raw;
  // A stream is quiet by design between events; the heartbeat, not the idle timeout, tells a dead peer.
  request.raw.socket.setTimeout(0);
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // Nginx and similar proxies would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.write(': stream open\n\n');
  const heartbeat = setInterval(() => res.write(HEARTBEAT), heartbeatMs);
  const stop = () => void stream.return();
  res.on('close', stop);
  try {
    for (;;) {
      const next = await stream.next();
      if (next.done || res.destroyed) break;
      if (!res.write(frame(next.value))) await writable(res, stream as LiveStream<unknown>);
    }
    res.end();
  } catch (error) {
    if (error instanceof SlowConsumerError) {
      res.destroy();
      return;
    }
    const { status, message } = classify(error);
    if (status >= 500 && status !== 503) logger.error(`A live stream failed: ${String(error)}`);
    res.end(`event: error\ndata: ${JSON.stringify({ error: message, status })}\n\n`);
  } finally {
    clearInterval(heartbeat);
    res.off('close', stop);
    await stream.return();
  }
}
