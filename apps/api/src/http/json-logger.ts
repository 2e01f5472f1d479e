import type { LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevelName } from '@im/config';

/**
 * One JSON line per log record on stdout (pino), for Fastify's request logs
 * and Nest's own alike. Credentials are censored wherever they might appear
 * in a logged object; request bodies are never logged.
 */
export function createJsonLogger(level: LogLevelName, destination: DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  return pino(
    {
      level,
      base: { service: 'incident-service', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: ['authorization', 'headers.authorization', 'req.headers.authorization', '*.headers.cookie', 'token', 'secret', '*.secret', '*.token'],
        censor: '[REDACTED]',
      },
    },
    // By default asynchronous: lines that arrive while a write is in flight go out together in the next one, so a busy
    // server makes few write(2) calls and an idle one writes at once (pino flushes on exit; kill -9 may lose a few lines).
    destination,
  );
}

/**
 * The access lines' logger: the same output, without the redaction pass. The access line has a fixed
 * set of fields (method, url, status, duration, sub, request id), none of them a credential; the
 * redaction's wildcard paths ran every field of every line through a clone and a JSON.stringify, an
 * eighth of what an append allocated.
 */
export const accessLogger = (logger: Logger): Logger => logger.child({}, { redact: [] });

/** A caller's request id is kept if it is a plain token; anything else gets a fresh one. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Nest's log calls, written by the same pino logger. */
export class NestJsonLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }

  error(message: unknown, stackOrContext?: string, context?: string): void {
    // Nest passes (message, stack, context), or (message, context) when there is no stack.
    const stack = context === undefined ? undefined : stackOrContext;
    this.logger.error({ context: context ?? stackOrContext, stack }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }

  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }

  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
