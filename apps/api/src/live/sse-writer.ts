import { Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { classify } from '../errors/error-mapping';
import { flushTick } from './flush-tick';
import { liveTrace } from './live-trace';
import { type LiveStream, SEND_BUFFER_LIMIT_BYTES, SlowConsumerError } from './live-stream';

/** One server-sent event: `id`, `event` and one `data` line of JSON (JSON text holds no raw line break). */
export const sseFrame = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const HEARTBEAT = Buffer.from(': keep-alive\n\n');

const logger = new Logger('ServerSentEvents');

/** One interval per heartbeat period for every open stream, rather than one per stream. */
const heartbeats = new Map<number, { timer: NodeJS.Timeout; responses: Set<ServerResponse> }>();

function startHeartbeat(res: ServerResponse, everyMs: number): () => void {
  let beat = heartbeats.get(everyMs);
  if (!beat) {
    const responses = new Set<ServerResponse>();
    const timer = setInterval(() => responses.forEach((r) => r.writable && r.write(HEARTBEAT)), everyMs);
    heartbeats.set(everyMs, (beat = { timer, responses }));
  }
  const { responses, timer } = beat;
  responses.add(res);
  return () => {
    responses.delete(res);
    if (responses.size > 0 || heartbeats.get(everyMs)?.timer !== timer) return;
    clearInterval(timer);
    heartbeats.delete(everyMs);
  };
}

const CRLF = Buffer.from('\r\n');

/** The bytes of one tick's events, and the same bytes framed as one chunk of HTTP/1.1's chunked transfer coding, built once when first asked. */
export class WireChunk {
  private framed?: Buffer;

  constructor(readonly bytes: Buffer) {}

  get chunked(): Buffer {
    return (this.framed ??= Buffer.concat([Buffer.from(`${this.bytes.length.toString(16)}\r\n`), this.bytes, CRLF]));
  }
}

/**
 * The items a stream takes in one tick, as bytes. The streams of subscribers
 * who share a policy input are offered the same item objects and take the same
 * run of them per tick: the chunk is serialized, encoded and framed once for
 * all of them (keyed by its first item, checked against the whole run).
 */
const chunks = new WeakMap<object, { items: object[]; chunk: WireChunk }>();

function chunkOf<T extends object>(items: T[], frame: (item: T) => string): WireChunk {
  const cached = chunks.get(items[0]);
  if (cached && cached.items.length === items.length && cached.items.every((item, i) => item === items[i])) return cached.chunk;
  const chunk = new WireChunk(Buffer.from(items.map(frame).join('')));
  chunks.set(items[0], { items, chunk });
  return chunk;
}

/**
 * Writes `chunk` to the socket now, in the flush tick's slice. A chunked
 * response (HTTP/1.1) gets the chunk framed once for every stream, written
 * straight to its socket: Node's response would frame it again per stream,
 * in three writes, and cork the socket until the next tick, so that every
 * write of a slice reached the kernel after the slice, in one go the slice's
 * time bound and the tick's measure of its own cost (FlushTick) never see.
 * Any other response (HTTP/1.0) is written through the response, and its
 * socket uncorked at once.
 */
export function writeNow(res: ServerResponse, chunk: WireChunk): void {
  const socket = res.socket;
  if (socket && res.headersSent && res.chunkedEncoding) {
    socket.write(chunk.chunked);
    return;
  }
  res.write(chunk.bytes);
  if (socket && socket.writableCorked > 0) socket.uncork();
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
export async function writeEventStream<T extends object>(
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
  const stopHeartbeat = startHeartbeat(res, heartbeatMs);
  const stop = () => void stream.return();
  // A write to a socket the peer reset fails here: the stream ends, as when the client leaves.
  res.on('close', stop).on('error', stop);
  try {
    for (;;) {
      const next = await stream.next();
      if (next.done || res.destroyed) break;
      // At the tick, what queued up meanwhile goes in the same write: one system call for many events when the server is busy.
      await new Promise<void>((written) =>
        flushTick.wait(() => {
          if (!res.destroyed) {
            const items = [next.value, ...stream.takeQueued()];
            writeNow(res, chunkOf(items, frame));
            if (liveTrace.on) liveTrace.wrote(items);
          }
          written();
        }),
      );
      if (res.destroyed) break;
      // The socket's buffer is this subscriber's memory: past the bound it is cut off, as one too far behind.
      if (res.writableLength > SEND_BUFFER_LIMIT_BYTES) throw new SlowConsumerError(SEND_BUFFER_LIMIT_BYTES, 'bytes');
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
    stopHeartbeat();
    res.off('close', stop).off('error', stop);
    await stream.return();
  }
}
