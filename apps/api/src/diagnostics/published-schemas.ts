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
 * The same schema as an OpenAPI 3.0 schema object: 3.0 has no `const` and no
 * `$schema`/`$id`, so those are translated or dropped.
 */
export function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'const') out.enum = [value];
    else out[key] = toOpenApiSchema(value);
  }
  return out;
}

/** Every published schema as OpenAPI components, for the OpenAPI document and GET /api/v1/schema?format=openapi. */
export const openApiComponents = (types = Object.keys(PUBLISHED_SCHEMAS)) =>
  Object.fromEntries(
    types.flatMap((type) => Object.entries(PUBLISHED_SCHEMAS[type]).map(([name, schema]) => [name, toOpenApiSchema(schema)])),
  );
