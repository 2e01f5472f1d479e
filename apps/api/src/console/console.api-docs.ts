import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DATA_CLASSES, VISIBILITIES } from '@im/cloudevents';
import { apiDocs, errorResponse } from '../http/api-docs.decorators';

/** The OpenAPI declaration of the two routes the web console needs before anyone has signed in. */

const CONSOLE_CONFIG = {
  type: 'object',
  required: ['environment', 'development_sign_in', 'oidc'],
  properties: {
    environment: { type: 'string', enum: ['development', 'production'] },
    development_sign_in: { type: 'boolean', description: 'Whether POST /api/v1/console/development-token mints tokens here' },
    oidc: {
      type: 'object',
      nullable: true,
      description: 'OpenID Connect authorization code with PKCE; null when CONSOLE_OIDC_CLIENT_ID is unset',
      required: ['issuer', 'client_id'],
      properties: {
        issuer: { type: 'string', example: 'https://login.example.com' },
        client_id: { type: 'string', example: 'incident-console' },
        audience: { type: 'string', nullable: true, description: 'JWT_AUDIENCE: the resource the access token is asked for' },
      },
    },
  },
};

const SIGN_IN_AS = {
  type: 'object',
  required: ['sub'],
  additionalProperties: false,
  properties: {
    sub: { type: 'string', example: 'alice' },
    roles: { type: 'array', items: { type: 'string' }, example: ['timeline.writer', 'timeline.reader', 'timeline.exporter'] },
    clearance: { type: 'string', enum: [...VISIBILITIES], default: 'public' },
    data_access: { type: 'array', items: { type: 'string', enum: [...DATA_CLASSES] } },
  },
};

const TOKEN_ANSWER = {
  type: 'object',
  required: ['token', 'expires_at'],
  properties: { token: { type: 'string', description: 'A bearer token (HS256)' }, expires_at: { type: 'string', format: 'date-time' } },
};

export const ConsoleApiDocs = {
  controller: apiDocs(ApiTags('console')),
  config: apiDocs(
    ApiOperation({ summary: 'How the web console signs in here (public)' }),
    ApiResponse({ status: 200, description: 'The sign-in methods', schema: CONSOLE_CONFIG }),
  ),
  developmentToken: apiDocs(
    ApiOperation({ summary: 'Development only: a token for the user, roles, clearance and data access given ("sign in as")' }),
    ApiBody({ schema: SIGN_IN_AS }),
    ApiResponse({ status: 201, description: 'The token', schema: TOKEN_ANSWER }),
    ApiResponse({ status: 400, ...errorResponse('Invalid claims') }),
    ApiResponse({ status: 403, ...errorResponse('Not development mode with the built-in development secret: APP_ENV=production, or JWT_SECRET or JWT_JWKS_URL is set') }),
    ApiResponse({ status: 415, ...errorResponse('Body is not JSON') }),
  ),
};
