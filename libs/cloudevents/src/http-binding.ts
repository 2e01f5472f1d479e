/**
 * The CloudEvents v1.0 HTTP protocol binding as the append route reads it:
 * which content mode a request uses, and the event a binary-mode request
 * carries in its `ce-*` headers and body.
 */
import { setOwnMember } from './own-member';

export const STRUCTURED_MEDIA_TYPE = 'application/cloudevents+json';
export const BATCH_MEDIA_TYPE = 'application/cloudevents-batch+json';
/** Most events in one batch (the body limit, 1 MiB, bounds it too). */
export const MAX_BATCH_EVENTS = 1000;
/** The header whose presence marks binary mode. */
export const SPECVERSION_HEADER = 'ce-specversion';

export type ContentMode = 'structured' | 'batched' | 'binary';
export type HttpHeaders = Record<string, string | string[] | undefined>;

/** `type/subtype` of a Content-Type, lower case, without parameters ('' when absent). */
export const mediaTypeOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0].trim().toLowerCase();

/** application/json and every application/<x>+json. */
export const isJsonMediaType = (contentType: string | undefined): boolean => /^application\/([^\s/;]+\+)?json$/.test(mediaTypeOf(contentType));

/**
 * The content mode, chosen by Content-Type as the binding's table says;
 * undefined when the request is in none (415). A request without a
 * Content-Type and without `ce-specversion` is structured: its body is empty,
 * and the event check says what is missing.
 */
export function contentModeOf(contentType: string | undefined, headers: HttpHeaders): ContentMode | undefined {
  const media = mediaTypeOf(contentType);
  if (media === STRUCTURED_MEDIA_TYPE) return 'structured';
  if (media === BATCH_MEDIA_TYPE) return 'batched';
  if (headers[SPECVERSION_HEADER] !== undefined) return 'binary';
  return media === 'application/json' || media === '' ? 'structured' : undefined;
}

const PLAIN_VALUE = /^[\x20\x21\x23-\x24\x26-\x7e]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const isHexDigit = (byte: number | undefined) =>
  byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66));

/**
 * A `ce-*` header value as the binding (1.0.2, 3.1.3.2) says a receiver reads
 * it: an RFC 7230 quoted string is unquoted, then `%XY` escapes are decoded
 * once and the bytes read as UTF-8; undefined when they are not valid UTF-8
 * (an overlong `%C0%A0`, a raw Latin-1 byte). A `%` not followed by two hex
 * digits is kept as it is: SDKs (the JavaScript one among them) send values
 * unencoded, and `100% sure` must not be refused. Node hands header values
 * over as Latin-1, one character per byte, so raw UTF-8 bytes decode too.
 */
export function decodeHeaderValue(value: string): string | undefined {
  // Most values are plain printable ASCII: nothing to undo.
  if (PLAIN_VALUE.test(value)) return value;
  const text = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
  const raw = Buffer.from(text, 'latin1');
  const bytes = Buffer.alloc(raw.length);
  let length = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x25 && isHexDigit(raw[i + 1]) && isHexDigit(raw[i + 2])) {
      bytes[length++] = parseInt(raw.toString('latin1', i + 1, i + 3), 16);
      i += 2;
    } else bytes[length++] = raw[i];
  }
  try {
    return utf8.decode(bytes.subarray(0, length));
  } catch {
    return undefined;
  }
}

export type BinaryModeEvent = { ok: true; event: Record<string, unknown> } | { ok: false; errors: string[] };

/**
 * The event of a binary-mode request: attributes from the `ce-*` headers,
 * `datacontenttype` from Content-Type, `data` from the body. A JSON media type
 * arrives parsed (the event check then wants an object, as in structured
 * mode); any other arrives as bytes, kept exactly as `data_base64`. An empty
 * body is an event without data.
 */
export function binaryModeEvent(headers: HttpHeaders, body: unknown): BinaryModeEvent {
  const event: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [header, value] of Object.entries(headers)) {
    if (!header.startsWith('ce-') || value === undefined) continue;
    const name = header.slice(3);
    if (name === 'datacontenttype') {
      errors.push('ce-datacontenttype must not be sent in binary mode: the Content-Type header is the datacontenttype');
      continue;
    }
    // The body is the data in binary mode: a header must not stand in for it, or sit beside it.
    if (name === 'data' || name === 'data_base64') {
      errors.push(`${header} must not be sent in binary mode: the body is the event's data`);
      continue;
    }
    const decoded = decodeHeaderValue(Array.isArray(value) ? value.join(', ') : value);
    if (decoded === undefined) errors.push(`${header} is not UTF-8 once percent-decoded`);
    else setOwnMember(event, name, decoded);
  }
  if (errors.length > 0) return { ok: false, errors };
  const contentType = headers['content-type'];
  if (typeof contentType === 'string') event.datacontenttype = contentType;
  if (Buffer.isBuffer(body)) {
    if (body.length > 0) event.data_base64 = body.toString('base64');
  } else if (body !== undefined) event.data = body;
  return { ok: true, event };
}
