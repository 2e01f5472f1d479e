/** Errors the domain raises; one mapping at the edge turns them into HTTP/GraphQL codes. */
export abstract class DomainError extends Error {
  abstract readonly kind: 'not_found' | 'conflict' | 'invalid' | 'forbidden';
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

export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden';
}

export const incidentNotFound = (id: string) => new NotFoundError(`Incident ${id} not found`);
