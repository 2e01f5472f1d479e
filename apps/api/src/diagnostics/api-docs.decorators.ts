import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid bearer token',
  403: 'The token lacks the role',
  404: 'Not found',
  409: 'Lifecycle move not allowed',
  413: 'Body over 1 MiB (or event over 64 KiB)',
  415: 'Body is not JSON',
  503: 'Policy decision point unavailable, or views lagging',
};

/** The `{error, status}` responses a route can give, for the OpenAPI document. */
export const ApiErrors = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_TEXT[status], schema: { $ref: '#/components/schemas/ErrorBody' } }),
    ),
  );

/** Bearer token per the mode rules, and the errors auth can give. */
export const ApiAuth = (...extra: number[]) => applyDecorators(ApiBearerAuth(), ApiErrors(401, ...extra));

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
