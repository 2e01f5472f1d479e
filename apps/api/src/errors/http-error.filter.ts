import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { GqlContextType } from '@nestjs/graphql';
import type { FastifyReply } from 'fastify';
import { GraphQLError } from 'graphql';
import { storageFaultOf } from '@im/event-store';
import { errorBody } from './error-body';
import { classify } from './error-mapping';

/**
 * Turns anything thrown into `{error, status}` over REST, or a GraphQL error
 * with `extensions.code`; a stack trace only ever reaches the log.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): GraphQLError | void {
    const client = classify(exception);
    if (client.status >= 500 && client.code === 'INTERNAL_SERVER_ERROR') {
      this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    } else if (storageFaultOf(exception)) {
      // The client is told the fault's kind; the operator needs SQLite's or the OS's own words.
      this.logger.error(`Storage fault: ${String(exception)}`);
    }
    if (host.getType<GqlContextType>() === 'graphql') {
      return new GraphQLError(client.message, { extensions: { code: client.code } });
    }
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (client.retryAfterSeconds !== undefined) void reply.header('retry-after', String(client.retryAfterSeconds));
    void reply.status(client.status).header('content-type', 'application/json; charset=utf-8').send(errorBody(client.status, client.message));
  }
}
