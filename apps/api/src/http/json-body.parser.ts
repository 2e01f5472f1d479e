import { BadRequestException } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

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

/**
 * JSON bodies for our media types only (anything else is 415); an empty body
 * reads as "no body" so bodiless POSTs work whatever headers a client sends.
 * Fastify's parser also refuses `__proto__` and `constructor.prototype` keys.
 */
export function registerJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    ['application/json', 'application/cloudevents+json'],
    { parseAs: 'string' },
    (request, body, done) => {
      const text = body.toString();
      if (text.trim() === '') return done(null, undefined);
      if (jsonNestsDeeperThan(text, MAX_BODY_NESTING)) {
        return done(new BadRequestException(`The JSON body nests deeper than ${MAX_BODY_NESTING} levels`), undefined);
      }
      parseJson(request, text, done);
    },
  );
}
