import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { normaliseAttributeNames } from './attribute-names';
import type { CloudEvent } from './cloud-event';
import { CLOUD_EVENT_SCHEMA, MAX_EVENT_BYTES, MAX_EVENT_NESTING } from './cloud-event.schema';
import { isJsonMediaType } from './http-binding';
import { parseTimestamp, TIMESTAMP_RULE } from './timestamp';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv, ['uri', 'uri-reference']);
// Not ajv-formats' date-time: it lets through leap seconds and hour-only offsets, which the read side cannot order.
ajv.addFormat('date-time', { type: 'string', validate: (text: string) => parseTimestamp(text) !== undefined });
const validate = ajv.compile<CloudEvent>(CLOUD_EVENT_SCHEMA);

export type CloudEventCheck =
  | { ok: true; event: CloudEvent }
  | { ok: false; tooLarge: boolean; errors: string[] };

const PATTERN_RULES: Record<string, string> = {
  type: 'type must start with "im."',
  subject: 'subject must be incident/<incident_id>',
  datacontenttype: 'datacontenttype must be a media type (type/subtype)',
  data_base64: 'data_base64 must be base64',
};

function describe(error: ErrorObject): string {
  const field = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'event';
  switch (error.keyword) {
    case 'required':
      return `${error.params.missingProperty} is required`;
    case 'enum':
      return `${field} must be one of ${(error.params.allowedValues as string[]).join(', ')}`;
    case 'const':
      return `${field} must be "${error.params.allowedValue}"`;
    case 'pattern':
      return PATTERN_RULES[field] ?? `${field} is malformed`;
    case 'format':
      return error.params.format === 'date-time'
        ? `${field} must be ${TIMESTAMP_RULE}`
        : `${field} must be a ${error.params.format}`;
    default:
      return `${field} ${error.message}`;
  }
}

/** Walks a value without recursion: true as soon as it finds objects or arrays nested more than `limit` deep. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * Checks a parsed request body against the timeline event schema. The raw
 * JSON is checked, not an SDK object: the `im.*` attribute names carry dots,
 * which the CloudEvents SDK's strict mode refuses.
 */
export function checkCloudEvent(body: unknown): CloudEventCheck {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, tooLarge: false, errors: ['the body must be one CloudEvent as a JSON object (structured mode)'] };
  }
  // Checked before anything recursive (JSON.stringify) walks the body: deep enough nesting overflows the stack.
  if (nestsDeeperThan(body, MAX_EVENT_NESTING)) {
    return { ok: false, tooLarge: false, errors: [`an event may nest objects and arrays at most ${MAX_EVENT_NESTING} levels deep`] };
  }
  const named = normaliseAttributeNames(body as Record<string, unknown>);
  if (!named.ok) return { ok: false, tooLarge: false, errors: named.errors };
  const event = withTextDataAsBytes(named.event);
  if (Buffer.byteLength(JSON.stringify(event)) > MAX_EVENT_BYTES) {
    return { ok: false, tooLarge: true, errors: [`an event may be at most ${MAX_EVENT_BYTES / 1024} KiB`] };
  }
  if (!validate(event)) return { ok: false, tooLarge: false, errors: [...new Set((validate.errors ?? []).map(describe))] };
  const mismatch = dataMismatch(event);
  return mismatch ? { ok: false, tooLarge: false, errors: [mismatch] } : { ok: true, event };
}

/**
 * Text data of a non-JSON datacontenttype (`"data": "hello"` with text/plain,
 * as structured mode sends what binary mode sends as a body) is kept as its
 * UTF-8 bytes in `data_base64`: the ledger's `data` is always a JSON object,
 * whichever mode an event came in.
 */
function withTextDataAsBytes(event: Record<string, unknown>): Record<string, unknown> {
  const { data, datacontenttype } = event;
  if (typeof data !== 'string' || typeof datacontenttype !== 'string' || isJsonMediaType(datacontenttype) || 'data_base64' in event) return event;
  const { data: _text, ...rest } = event;
  return { ...rest, data_base64: Buffer.from(data).toString('base64') };
}

/** What the CloudEvents JSON format forbids across attributes. */
function dataMismatch(event: CloudEvent): string | undefined {
  if (event.data !== undefined && event.data_base64 !== undefined) return 'an event carries data or data_base64, not both';
  if (event.data !== undefined && event.datacontenttype !== undefined && !isJsonMediaType(event.datacontenttype)) {
    return `data is a JSON object, so datacontenttype must be a JSON media type, not ${event.datacontenttype} (send other content as data_base64)`;
  }
  return undefined;
}
