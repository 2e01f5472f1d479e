import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '@im/incidents';
import { WrongExpectedRevisionError } from '@im/event-store';
import { PolicyUnavailableError } from '@im/policy';
import { ProjectionLagError } from '@im/read-models';
import { errorBody, type ErrorBody } from './error-body';

const DOMAIN_STATUS: Record<DomainError['kind'], number> = { invalid: 400, forbidden: 403, not_found: 404, conflict: 409 };

/** Turns anything thrown into `{error, status}`; a stack trace only ever reaches the log. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const body = this.toBody(exception);
    if (body.status >= 500) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    void reply.status(body.status).header('content-type', 'application/json; charset=utf-8').send(body);
  }

  private toBody(exception: unknown): ErrorBody {
    if (exception instanceof DomainError) return errorBody(DOMAIN_STATUS[exception.kind], exception.message);
    if (exception instanceof ProjectionLagError) {
      return errorBody(503, `The change was recorded but the views are behind: ${exception.message}. Read again shortly.`);
    }
    if (exception instanceof PolicyUnavailableError) {
      // Fail-closed: no timeline data without a decision.
      return errorBody(503, `The policy decision point is unavailable, so timeline data is withheld: ${exception.message}`);
    }
    if (exception instanceof HttpException) return errorBody(exception.getStatus(), messageOf(exception));
    if (exception instanceof WrongExpectedRevisionError) {
      // Only after the command handler's retries: the incident kept changing under it.
      return errorBody(409, 'The incident changed while the request was decided; retry it');
    }
    // Fastify's own client errors (bad JSON, body too large, unsupported media type) carry a 4xx statusCode.
    const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
      return errorBody(statusCode, (exception as Error).message);
    }
    return errorBody(500, 'Internal server error');
  }
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}
