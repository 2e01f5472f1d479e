import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { AppConfig } from '@im/config';
import { BODY_LIMIT_BYTES } from './json-body.parser';

/**
 * Response headers for an API that serves JSON to phones and scripts: no
 * content may run, be framed or be sniffed. The development-only HTML pages
 * (Swagger UI, GraphiQL) set their own, wider policy. Helmet decides the
 * headers; with these options (no nonces) they are the same for every
 * response, so its middleware runs once, at start, and each request gets the
 * recorded headers as Fastify reply headers. Running it per request (raw
 * `setHeader` calls, which also send every later header down node's slow
 * path) cost about 25 µs of a GraphQL read's CPU.
 */
export function registerSecurityHeaders(fastify: FastifyInstance): void {
  const headers = securityHeaders();
  fastify.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers);
    done();
  });
}

/** The headers helmet sets on a response, recorded from one run of its middleware. */
function securityHeaders(): Record<string, string> {
  const setHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    // Helmet's default is SAMEORIGIN; frame-ancestors 'none' (here and in every page's own policy) says no frame at all.
    xFrameOptions: { action: 'deny' },
  });
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    // X-Powered-By, which Fastify never sets.
    removeHeader: () => undefined,
  };
  let finished = false;
  setHeaders({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    finished = true;
  });
  // Helmet's middleware is synchronous; one that was not could not be recorded this way.
  if (!finished) throw new Error('helmet did not set its headers synchronously');
  return headers;
}

/** How long a browser may reuse a preflight's answer: ten minutes, so a change of CORS_ORIGINS (a restart) reaches browsers soon; not a knob. */
const PREFLIGHT_CACHE_SECONDS = 600;

/**
 * CORS only for the origins configured in CORS_ORIGINS (none by default):
 * native apps and servers do not need it, a browser dashboard is listed
 * explicitly. Tokens travel in the Authorization header, never in cookies,
 * so credentials stay off.
 */
export function enableCors(app: NestFastifyApplication, config: AppConfig): void {
  if (config.http.corsOrigins.length === 0) return;
  app.enableCors({
    origin: config.http.corsOrigins,
    methods: ['GET', 'POST'],
    allowedHeaders: ['authorization', 'content-type', 'x-request-id'],
    exposedHeaders: ['location', 'link', 'x-request-id'],
    credentials: false,
    maxAge: PREFLIGHT_CACHE_SECONDS,
  });
}

/**
 * Echoes the request id and writes one access-log line per request (no headers, no body), through
 * `access` (json-logger.ts: accessLogger), whose fields are these and no others.
 */
export function registerRequestLogging(fastify: FastifyInstance, access: Logger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const user = (request as { user?: { sub?: string } }).user;
    access.info(
      {
        request_id: request.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
        sub: user?.sub,
      },
      'request completed',
    );
    done();
  });
}

/** How much more of a refused body is read and discarded, and for how long, before its connection closes. */
export const LINGER_BYTES = 4 * BODY_LIMIT_BYTES;
export const LINGER_MS = 10_000;

/**
 * A body refused before it has all arrived (over the limit: 413, or not
 * parseable) is answered with `Connection: close`, and node then closes the
 * socket at once. Closing with the rest of the body still arriving resets the
 * connection (RST), and a client still sending, or one that reads only once it
 * has sent everything, loses the answer: it sees "connection reset" instead of
 * 413. So such a connection closes gracefully: the answer and our FIN go out,
 * what the client still sends is read and discarded up to LINGER_BYTES or
 * LINGER_MS, then the socket closes (at once when the body ends). Only replies
 * to incomplete requests are touched: the check is one boolean on every other.
 */
export function registerLingeringClose(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && reply.getHeader('connection') === 'close') lingerBeforeClose(request.raw);
    done(null, payload);
  });
}

function lingerBeforeClose(request: IncomingMessage): void {
  const socket = request.socket;
  // An injected request (fastify.inject, the in-process tests) has no real socket to linger on.
  if (typeof socket?.destroySoon !== 'function') return;
  const closeNow = socket.destroySoon.bind(socket);
  let discarded = 0;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(timer);
    request.off('data', discard);
    socket.destroy();
  };
  const discard = (chunk: Buffer) => {
    discarded += chunk.length;
    if (closing && discarded > LINGER_BYTES) close();
  };
  // Read by us, node does not dump the body (its dump would read it all, unbounded).
  request.on('data', discard);
  request.once('end', () => closing && close());
  // What node calls once the answer is written on a `Connection: close` response.
  socket.destroySoon = () => {
    if (request.complete) return closeNow();
    closing = true;
    socket.end();
    if (discarded > LINGER_BYTES) return close();
    timer = setTimeout(close, LINGER_MS).unref();
  };
}
