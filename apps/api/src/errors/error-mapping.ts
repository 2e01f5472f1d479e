import { HttpException } from '@nestjs/common';
import { describeStorageFault, storageFaultOf, storageFaultStatus, WrongExpectedRevisionError } from '@im/event-store';
import { DomainError } from '@im/incidents';
import { PolicyUnavailableError } from '@im/policy';
import { ProjectionLagError, ReadModelCatchingUpError } from '@im/read-models';

/** What any error means to a client, over REST (`status`) and GraphQL (`code`). */
export interface ClientError {
  status: number;
  code: string;
  message: string;
  /** Sent as the Retry-After header (seconds). */
  retryAfterSeconds?: number;
}

/**
 * The service cannot take the request now, and the sender should send it
 * again: 503 with Retry-After, for senders that retry only 5xx answers.
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A bulk catch-up of a million events takes about a minute: a reader may look again in a few seconds. */
const CATCHING_UP_RETRY_SECONDS = 5;

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  503: 'SERVICE_UNAVAILABLE',
  507: 'INSUFFICIENT_STORAGE',
};

const DOMAIN_STATUS: Record<DomainError['kind'], number> = { invalid: 400, forbidden: 403, not_found: 404, conflict: 409, too_large: 413 };

const error = (status: number, message: string): ClientError => ({
  status,
  code: CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST'),
  message,
});

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/** The one mapping of errors to what clients see; anything unexpected is a 500 without details. */
export function classify(exception: unknown): ClientError {
  if (exception instanceof DomainError) return error(DOMAIN_STATUS[exception.kind], exception.message);
  if (exception instanceof RetryLaterError) return { ...error(503, exception.message), retryAfterSeconds: exception.retryAfterSeconds };
  if (exception instanceof PolicyUnavailableError) {
    // Fail-closed: no timeline data without a decision.
    return error(503, `The policy decision point is unavailable, so timeline data is withheld: ${exception.message}`);
  }
  if (exception instanceof ProjectionLagError) {
    return error(503, `The change was recorded but the views are behind: ${exception.message}. Read again shortly.`);
  }
  if (exception instanceof ReadModelCatchingUpError) return { ...error(503, `${exception.message}. Read again shortly.`), retryAfterSeconds: CATCHING_UP_RETRY_SECONDS };
  if (exception instanceof WrongExpectedRevisionError) {
    // Only after the command handler's retries: the incident kept changing under it.
    return error(409, 'The incident changed while the request was decided; retry it');
  }
  const fault = storageFaultOf(exception);
  if (fault) {
    // This request's change is not acknowledged; every change acknowledged before the fault is stored.
    const retry = fault.kind === 'full' ? 'retry once space has been freed' : 'retry later';
    return error(storageFaultStatus(fault), `${describeStorageFault(fault)}: the request could not be completed; ${retry}`);
  }
  if (exception instanceof HttpException) return error(exception.getStatus(), messageOf(exception));
  // Fastify's own client errors (bad JSON, body too large, unsupported media type) carry a 4xx statusCode.
  const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return error(statusCode, (exception as Error).message);
  }
  return error(500, 'Internal server error');
}
