import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { GqlContextType } from '@nestjs/graphql';
import type { FastifyReply } from 'fastify';
import { GraphQLError } from 'graphql';
import { storageFaultOf } from '@im/event-store';
import { errorBody } from './error-body';
import { classify, type ClientError } from './error-mapping';

const logger = new Logger('HttpError');

/** What the client is told of an error; what it hides from the client (an internal error, a storage fault's own words) goes to the log. */
export function classifyAndLog(exception: unknown): ClientError {
  const client = classify(exception);
  if (client.status >= 500 && client.code === 'INTERNAL_SERVER_ERROR') {
    logger.error(exception instanceof Error ? exception.stack : String(exception));
  } else if (storageFaultOf(exception)) {
    // The client is told the fault's kind; the operator needs SQLite's or the OS's own words.
    logger.error(`Storage fault: ${String(exception)}`);
  }
  return client;
}

/** A GraphQL error with the code the client acts on, over HTTP and the socket alike; an error that already has a code is kept. */
export function codedGraphqlError(exception: unknown): GraphQLError {
  if (exception instanceof GraphQLError && typeof exception.extensions.code === 'string') return exception;
  const client = classifyAndLog(exception instanceof GraphQLError && exception.originalError ? exception.originalError : exception);
  return new GraphQLError(client.message, { extensions: { code: client.code } });
}

/**
 * Turns anything thrown into `{error, status}` over REST, or a GraphQL error
 * with `extensions.code`; a stack trace only ever reaches the log.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): GraphQLError | void {
    const client = classifyAndLog(exception);
    if (host.getType<GqlContextType>() === 'graphql') {
      return new GraphQLError(client.message, { extensions: { code: client.code } });
    }
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (client.retryAfterSeconds !== undefined) void reply.header('retry-after', String(client.retryAfterSeconds));
    void reply.status(client.status).header('content-type', 'application/json; charset=utf-8').send(errorBody(client.status, client.message));
  }
}
