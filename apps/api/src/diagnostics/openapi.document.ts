import type { INestApplication } from '@nestjs/common';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@im/config';
import { version } from '../../../../package.json';
import { ACCESS_KEY, type Access, INTEGRATION_KEY_ACCESS } from '../auth/access.decorators';
import { ERROR_TEXT, errorResponse } from '../http/api-docs.decorators';
import { ERROR_BODY_SCHEMA, openApiComponents, toOpenApiSchema } from './published-schemas';

/** Holds the OpenAPI document, generated once the app's routes exist. */
export class OpenApiDocument {
  document?: OpenAPIObject;
}

type OperationObject = NonNullable<OpenAPIObject['paths'][string]['get']>;
type ParameterObject = Extract<NonNullable<OperationObject['parameters']>[number], { in: string }>;

const BEARER = 'bearer';
const INTEGRATION_KEY = 'integrationKey';

/** Who may call an operation: its access rule, and whether an integration key is accepted beside a token. */
interface OperationAccess {
  access: Access | undefined;
  acceptsIntegrationKey: boolean;
}

/**
 * Who may call each operation, read from the same `@Public`/`@RequireRole`
 * metadata the auth guard enforces, by the operation id Swagger derives from
 * the handler (`Controller_method`, `[n]` appended for a handler with several paths).
 */
function accessByOperationId(app: INestApplication): Map<string, OperationAccess> {
  const reflector = app.get(Reflector);
  const access = new Map<string, OperationAccess>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[method];
        if (method === 'constructor' || typeof handler !== 'function') continue;
        access.set(`${metatype.name}_${method}`, {
          access: reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [handler, metatype]),
          acceptsIntegrationKey: reflector.getAllAndOverride<boolean | undefined>(INTEGRATION_KEY_ACCESS, [handler, metatype]) === true,
        });
      }
    }
  }
  return access;
}

/**
 * The security an operation declares and the auth errors it can give, as the
 * auth guard decides them: public routes need nothing; an authenticated route
 * needs a token in every mode (401), a role too (401, 403); other routes need a token in production and serve
 * callers without one in development (`{}`: no security), though a token that
 * is sent must verify (401). A route that accepts an integration key names
 * that scheme as an alternative to the token.
 */
function declareAccess(operation: OperationObject, { access, acceptsIntegrationKey }: OperationAccess, env: AppConfig['env']): void {
  if (access?.kind === 'public') {
    operation.security = [];
    return;
  }
  const credentials: Record<string, string[]>[] = [{ [BEARER]: [] }, ...(acceptsIntegrationKey ? [{ [INTEGRATION_KEY]: [] }] : [])];
  operation.security = access === undefined && env === 'development' ? [...credentials, {}] : credentials;
  const auth: OperationObject['responses'] = { 401: errorResponse(ERROR_TEXT[401]) };
  if (access?.kind === 'role') auth[403] = errorResponse(`${ERROR_TEXT[403]} ${access.role}`);
  operation.responses = { ...auth, ...operation.responses };
}

/**
 * Storage faults reach every route that reads or writes a store: 503 while it
 * cannot be read or written, and 507 for a write when it is full; except where
 * a route declares a 503 with Retry-After itself (the alert receivers answer
 * every fault so, full disk included: their senders retry 503).
 */
function declareStorageFaults(method: string, operation: OperationObject): void {
  const faults: OperationObject['responses'] = { 503: errorResponse(ERROR_TEXT[503]) };
  const retryLater = (operation.responses?.[503] as { headers?: Record<string, unknown> } | undefined)?.headers?.['Retry-After'] !== undefined;
  if (method === 'post' && !retryLater) faults[507] = errorResponse(ERROR_TEXT[507]);
  operation.responses = { ...faults, ...operation.responses };
}

/** Every `{name}` of a path template is a required path parameter (a handler need not read it, e.g. the 404 stubs). */
function declarePathParameters(path: string, operation: OperationObject): void {
  const declared = new Set((operation.parameters ?? []).map((p) => 'in' in p && p.in === 'path' && p.name));
  const missing = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((name) => !declared.has(name));
  operation.parameters = [...missing.map((name): ParameterObject => ({ name, in: 'path', required: true, schema: { type: 'string' } })), ...(operation.parameters ?? [])];
}

/** Generates the OpenAPI 3.0 document from the controllers' decorators, with the validators' schemas as components. */
export function buildOpenApiDocument(app: INestApplication, config: Pick<AppConfig, 'env'>): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Incident service')
    .setDescription('Incidents, the CloudEvents timeline ledger and diagnostics. GraphQL is at /api/v1/graphql. Errors are {error, status}.')
    .setVersion(version)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    // Relative: the paths are served by the instance that serves this document.
    .addServer('/')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'imk_<16 hex id>_<64 hex secret>',
        description: 'An integration key (POST /api/v1/integration-keys): accepted only by the operations that list it',
      },
      INTEGRATION_KEY,
    );
  const document = SwaggerModule.createDocument(app, builder.build());
  const access = accessByOperationId(app);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, OperationObject][]) {
      const operationAccess = access.get(operation.operationId?.replace(/\[\d+\]$/, '') ?? '') ?? { access: undefined, acceptsIntegrationKey: false };
      declareAccess(operation, operationAccess, config.env);
      if (operationAccess.access?.kind !== 'public') declareStorageFaults(method, operation);
      declarePathParameters(path, operation);
    }
  }
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...(openApiComponents() as object), ErrorBody: toOpenApiSchema(ERROR_BODY_SCHEMA) as object },
  };
  return document;
}
