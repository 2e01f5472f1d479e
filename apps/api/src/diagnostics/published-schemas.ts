import { CLOUD_EVENT_SCHEMA } from '@im/cloudevents';
import { CONFIG_SCHEMA } from '@im/config';
import { CREATE_INCIDENT_SCHEMA, INCIDENT_SCHEMA } from '@im/incidents';

type JsonSchema = Record<string, unknown>;

/** Error bodies of every REST error. */
export const ERROR_BODY_SCHEMA = {
  title: 'ErrorBody',
  type: 'object',
  required: ['error', 'status'],
  properties: { error: { type: 'string' }, status: { type: 'integer' } },
} as const;

/** The JSON Schemas the service validates with, by the `type` of GET /api/v1/schema. */
export const PUBLISHED_SCHEMAS: Record<string, Record<string, JsonSchema>> = {
  incident: { Incident: INCIDENT_SCHEMA, CreateIncident: CREATE_INCIDENT_SCHEMA },
  event: { CloudEvent: CLOUD_EVENT_SCHEMA },
  config: { Config: CONFIG_SCHEMA },
};

/**
 * The same schema as an OpenAPI 3.0 schema object: 3.0 has no `const`, no
 * `$schema`/`$id` and no `null` type (`nullable` instead), so those are
 * translated or dropped.
 */
export function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'const') out.enum = [value];
    else if (key === 'type' && Array.isArray(value) && value.includes('null')) Object.assign(out, { type: value.find((type) => type !== 'null'), nullable: true });
    else out[key] = toOpenApiSchema(value);
  }
  return out;
}

/** Every published schema as OpenAPI components, for the OpenAPI document and GET /api/v1/schema?format=openapi. */
export const openApiComponents = (types = Object.keys(PUBLISHED_SCHEMAS)) =>
  Object.fromEntries(
    types.flatMap((type) => Object.entries(PUBLISHED_SCHEMAS[type]).map(([name, schema]) => [name, toOpenApiSchema(schema)])),
  );

export const SCHEMA_FORMATS = ['openapi', 'jsonschema'] as const;

/** What GET /api/v1/schema is asked for. */
export interface SchemaRequest {
  type: string;
  format: (typeof SCHEMA_FORMATS)[number];
}

/** The schemas of one type: as the JSON Schema (one, or several under $defs), or as an OpenAPI document's components. */
export function publishedSchemaDocument({ type, format }: SchemaRequest, version: string): unknown {
  if (format === 'jsonschema') {
    const schemas = PUBLISHED_SCHEMAS[type];
    const names = Object.keys(schemas);
    return names.length === 1 ? schemas[names[0]] : { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: schemas };
  }
  return { openapi: '3.0.3', info: { title: `Incident service: ${type} schemas`, version }, paths: {}, components: { schemas: openApiComponents([type]) } };
}
