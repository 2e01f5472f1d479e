import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

export const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid bearer token',
  403: 'The token lacks the role',
  404: 'Not found',
  409: 'Lifecycle move not allowed',
  413: 'Body over 1 MiB (or event over 64 KiB)',
  415: 'Body is not JSON',
  503: 'Policy decision point unavailable, views lagging, or storage failing',
  507: 'Storage full: nothing was written',
};

/**
 * A route's (or controller's) OpenAPI declaration as one decorator, applied as
 * if its parts were written one above another on the handler (bottom first),
 * so the document lists parameters in the order they are written.
 */
export const apiDocs = (...decorators: (ClassDecorator | MethodDecorator)[]) => applyDecorators(...[...decorators].reverse());

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** An `{error, status}` response object. */
export const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('ErrorBody') } } });

/**
 * The `{error, status}` responses a route can give, for the OpenAPI document.
 * 401 and 403 are declared from the route's access rule (openapi.document.ts),
 * 403 here only for refusals of the handler's own.
 */
export const ApiErrors = (...statuses: number[]) =>
  applyDecorators(...statuses.map((status) => ApiResponse({ status, ...errorResponse(ERROR_TEXT[status]) })));
