/** Errors the domain raises; one mapping at the edge turns them into HTTP/GraphQL codes. */
export abstract class DomainError extends Error {
  abstract readonly kind: 'not_found' | 'conflict' | 'invalid' | 'too_large' | 'forbidden';
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
}

export class ConflictError extends DomainError {
  readonly kind = 'conflict';
}

export class InvalidError extends DomainError {
  readonly kind = 'invalid';
}

/** Input over a size the domain bounds (an event's 64 KiB); invalid too, but the client must shrink it, not fix it. */
export class TooLargeError extends DomainError {
  readonly kind = 'too_large';
}

export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
}

export const incidentNotFound = (id: string) => new NotFoundError(`Incident ${id} not found`);

/** A sender's text as an error message quotes it: at most 40 characters, so a long value cannot swamp the message. */
export const shortened = (text: string): string => (text.length > 40 ? `${text.slice(0, 37)}...` : text);
