import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contentModeOf, isJsonMediaType } from '@im/cloudevents';
import { InvalidError, shortened } from '@im/incidents';

/** Requests larger than this are refused with 413 before they are parsed. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** No request needs deeper JSON; deeper input would only feed recursive code (stringify, validators) a stack overflow. */
export const MAX_BODY_NESTING = 64;

/** True when brackets in the JSON text (outside strings) nest deeper than `limit`. */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** A number literal's decimal value as sign, significant digits and exponent ("-12e3"); undefined for Infinity/NaN. */
function decimalValue(literal: string): string | undefined {
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!parts) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = parts;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  // A loop, not /0+$/: that regex is quadratic on long runs of zeros followed by a digit (a one-request stall).
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  const significant = digits.slice(0, end);
  return `${sign}${significant}e${BigInt(exponent) - BigInt(fraction.length) + BigInt(digits.length - significant.length)}`;
}

/** Whether JSON.parse keeps the literal's value (it reads every number as a 64-bit float). */
const keptExactly = (literal: string) => decimalValue(literal) === decimalValue(String(Number(literal)));

interface Container {
  /** The key or index the scan is at. */
  at: string | number;
  inObject: boolean;
  /** In an object, the next string is a key. */
  expectKey: boolean;
}

const pathOf = (stack: Container[]) =>
  stack.map(({ at }, i) => (typeof at === 'number' ? `[${at}]` : i === 0 ? at : `.${at}`)).join('');

/**
 * The first number in a (valid) JSON text that parsing would change, with
 * where it is: integers beyond 2^53, more digits than a double holds, values
 * that overflow to Infinity (stored as null) or underflow to 0. An audit
 * ledger must store what it was given, so such a body is refused.
 */
export function firstInexactNumber(text: string): { path: string; literal: string } | undefined {
  // Only a literal with 16 or more digits (a decimal point among them) or an exponent can fail to round-trip: most bodies skip the scan.
  // A number starts the text or follows ':', '[' or ',', so the hex in ids ("3f0e…", a UUID's "-3e4f") does not force it.
  if (!/(?:^|[:[,])\s*-?(?:\d(?:\.?\d){15}|\d+(?:\.\d+)?[eE])/.test(text)) return undefined;
  const stack: Container[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.inObject && top.expectKey) {
        top.at = JSON.parse(text.slice(i, end + 1)) as string;
        top.expectKey = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      stack.push({ at: c === '{' ? '' : 0, inObject: c === '{', expectKey: c === '{' });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      if (top.inObject) top.expectKey = true;
      else top.at = (top.at as number) + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let end = i + 1;
      while (end < text.length && /[\d.eE+-]/.test(text[end])) end++;
      const literal = text.slice(i, end);
      if (!keptExactly(literal)) return { path: pathOf(stack), literal };
      i = end - 1;
    }
  }
  return undefined;
}

/** A parsed body that must be a JSON object (not an array, a bare value or no body at all). */
export function jsonObjectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidError('Request body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * Fastify's parser answers both of its refusals with one message naming
 * application/json, whatever the Content-Type: say which refusal it was.
 * Called only for a body it refused, so the second parse costs nothing on
 * the accepted path.
 */
export function refusedJsonError(text: string): InvalidError {
  try {
    JSON.parse(text);
  } catch {
    return new InvalidError('The body is not valid JSON');
  }
  return new InvalidError(
    'The body has a member named __proto__, or a constructor member holding prototype, which the service refuses in every JSON body ' +
      '(such a member could change the prototype of the objects it is read into); rename it',
  );
}

/** A route whose body is read by the CloudEvents HTTP binding, so takes more than JSON. */
export const CLOUDEVENTS_ROUTES = new Set(['/api/v1/timeline/events']);

const unsupportedMediaType = (contentType: string | undefined) =>
  Object.assign(new Error(`Unsupported Media Type: ${contentType ?? ''}`), { statusCode: 415 });

/**
 * JSON bodies for our media types only (anything else is 415); an empty body
 * reads as "no body" so bodiless POSTs work whatever headers a client sends.
 * Fastify's parser also refuses `__proto__` and `constructor.prototype` keys.
 * A number that parsing would change is refused with 400 naming its field.
 *
 * The CloudEvents routes also take a batch (`application/cloudevents-batch+json`)
 * and, with a `ce-specversion` header, a binary-mode body of any media type:
 * JSON ones (`+json`) under the same limits, any other as raw bytes.
 */
export function registerJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  const parseJsonText = (request: FastifyRequest, text: string, done: (error: Error | null, body?: unknown) => void) => {
    if (text.trim() === '') return done(null, undefined);
    if (jsonNestsDeeperThan(text, MAX_BODY_NESTING)) {
      return done(new InvalidError(`The JSON body nests deeper than ${MAX_BODY_NESTING} levels`), undefined);
    }
    parseJson(request, text, (error, value) => {
      if (error) return done(refusedJsonError(text), undefined);
      const inexact = firstInexactNumber(text);
      if (!inexact) return done(null, value);
      const where = inexact.path === '' ? 'The body' : inexact.path;
      done(
        new InvalidError(
          `${where} is the number ${shortened(inexact.literal)}, which cannot be stored exactly ` +
            '(a JSON number is kept as a 64-bit float: integers up to 2^53, about 16 significant digits); send it as a string',
        ),
        undefined,
      );
    });
  };
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(['application/json', 'application/cloudevents+json'], { parseAs: 'string' }, (request, body, done) =>
    parseJsonText(request, body.toString(), done),
  );
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const contentType = request.headers['content-type'];
    const mode = CLOUDEVENTS_ROUTES.has(request.routeOptions.url ?? '') ? contentModeOf(contentType, request.headers) : undefined;
    if (mode === undefined) return done(unsupportedMediaType(contentType), undefined);
    if (mode === 'batched' || isJsonMediaType(contentType)) return parseJsonText(request, body.toString(), done);
    done(null, body);
  });
}
