import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { version } from '../../../../package.json';
import { ERROR_BODY_SCHEMA, openApiComponents, toOpenApiSchema } from './published-schemas';

/** Holds the OpenAPI document, generated once the app's routes exist. */
export class OpenApiDocument {
  document?: OpenAPIObject;
}

/** Generates the OpenAPI 3.0 document from the controllers' decorators, with the validators' schemas as components. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Incident service')
    .setDescription('Incidents, the CloudEvents timeline ledger and diagnostics. GraphQL is at /api/v1/graphql. Errors are {error, status}.')
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...(openApiComponents() as object), ErrorBody: toOpenApiSchema(ERROR_BODY_SCHEMA) as object },
  };
  return document;
}
