/** Values of `im.data_class`: data that only callers granted that class may read unredacted. */
export const DATA_CLASSES = ['pii', 'phi', 'legal_hold'] as const;
export type DataClass = (typeof DATA_CLASSES)[number];

/** Values of `im.visibility`, from least to most restricted. */
export const VISIBILITIES = ['public', 'internal', 'restricted', 'confidential'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** Largest accepted event, serialized. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** How deep objects and arrays may nest in an event (the event object itself is level 0). */
export const MAX_EVENT_NESTING = 32;

const nonEmpty = { type: 'string', minLength: 1, maxLength: 1024 } as const;

/**
 * The JSON Schema (draft 2020-12) of a timeline event as written: CloudEvents
 * v1.0 structured mode with the service's `im.*` extensions. The append
 * validator compiles this object and GET /api/v1/schema serves it.
 */
export const CLOUD_EVENT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:incident-service:schema:cloudevent',
  title: 'Timeline event (CloudEvents v1.0, structured JSON)',
  type: 'object',
  required: ['specversion', 'id', 'source', 'type', 'time'],
  properties: {
    specversion: { const: '1.0', description: 'CloudEvents version; must be "1.0"' },
    id: { ...nonEmpty, description: 'Event id (a UUID is recommended); unique per source' },
    source: { ...nonEmpty, format: 'uri-reference', description: 'Source URI, e.g. im://<source_name>' },
    type: { type: 'string', pattern: '^im\\.[A-Za-z0-9_.-]+$', maxLength: 256, description: 'Event type; starts with "im."' },
    time: { type: 'string', format: 'date-time', description: 'RFC 3339 timestamp: a real calendar date, seconds 00-59 (no leap second), Z or a ±hh:mm offset' },
    subject: {
      type: 'string',
      pattern: '^incident/[^/]+$',
      maxLength: 256,
      description: 'incident/<incident_id>: the incident the event belongs to',
    },
    datacontenttype: {
      type: 'string',
      pattern: "^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+\\s*(;.*)?$",
      description: 'RFC 2046 media type of the data; data (a JSON object) needs a JSON type (the default), other types carry data_base64',
    },
    dataschema: { type: 'string', format: 'uri' },
    // additionalProperties spelt out: generated clients read a bare `type: object` as an empty object.
    data: { type: 'object', additionalProperties: true, description: 'Event data; keys used: title, severity, service, content' },
    data_base64: {
      type: 'string',
      pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
      description: 'Data that is not JSON, as base64 (a text data string of a non-JSON datacontenttype is stored this way too)',
    },
    'im.actor': { ...nonEmpty, description: 'Who or what triggered the event' },
    'im.origin_id': { ...nonEmpty, description: 'Idempotency key from the source system' },
    'im.correlation_key': { ...nonEmpty, description: 'Groups events across incidents' },
    'im.fingerprint': { ...nonEmpty, description: 'Alert grouping key' },
    'im.data_class': {
      type: 'array',
      items: { enum: [...DATA_CLASSES] },
      uniqueItems: true,
      description: 'Sensitivity classes of the data',
    },
    'im.visibility': { enum: [...VISIBILITIES], description: 'Who may see the event; default internal' },
  },
  // Other CloudEvents extension attributes are allowed and kept.
  additionalProperties: true,
} as const;
