import { InvalidError } from '@im/incidents';
import { PUBLISHED_SCHEMAS, SCHEMA_FORMATS, type SchemaRequest } from './published-schemas';

/** GET /api/v1/schema?type=&format=: the incident schemas as OpenAPI unless asked otherwise. */
export function parseSchemaQuery(type: unknown = 'incident', format: unknown = 'openapi'): SchemaRequest {
  if (typeof type !== 'string' || !Object.hasOwn(PUBLISHED_SCHEMAS, type)) {
    throw new InvalidError(`type must be one of ${Object.keys(PUBLISHED_SCHEMAS).join(', ')}`);
  }
  if (!(SCHEMA_FORMATS as readonly unknown[]).includes(format)) throw new InvalidError(`format must be ${SCHEMA_FORMATS.join(' or ')}`);
  return { type, format: format as SchemaRequest['format'] };
}
