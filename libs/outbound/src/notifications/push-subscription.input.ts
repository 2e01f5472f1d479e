import { ECDH } from 'node:crypto';
import { InvalidError } from '@im/incidents';

export interface PushSubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** Push services' endpoint URLs are a few hundred characters; this bounds what a caller may store, not a knob. */
const ENDPOINT_MAX_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** base64url of exactly `bytes` bytes (padding tolerated, as some browsers send it), or undefined. */
function decoded(value: unknown, bytes: number): Buffer | undefined {
  if (typeof value !== 'string' || !BASE64URL.test(value)) return undefined;
  const buffer = Buffer.from(value, 'base64url');
  return buffer.length === bytes ? buffer : undefined;
}

/** A point on P-256: what encryption for the subscription needs (RFC 8291), and what a random 65 bytes is not. */
function isP256Point(key: Buffer): boolean {
  try {
    ECDH.convertKey(key, 'prime256v1');
    return true;
  } catch {
    return false;
  }
}

/** Keys a message can be encrypted for: an uncompressed P-256 point and a 16-byte auth secret. */
export function validSubscriptionKeys(keys: { p256dh?: unknown; auth?: unknown } | null | undefined): boolean {
  const p256dh = decoded(keys?.p256dh, 65);
  return p256dh !== undefined && p256dh[0] === 0x04 && isP256Point(p256dh) && decoded(keys?.auth, 16) !== undefined;
}

/**
 * A browser's PushSubscription (its toJSON): an https endpoint (RFC 8030
 * needs TLS), the client's P-256 public key (65 bytes, uncompressed) and its
 * 16-byte authentication secret (RFC 8291), both base64url.
 */
export function parsePushSubscriptionInput(input: { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } | null }): PushSubscriptionInput {
  const { endpoint } = input;
  let url: URL | undefined;
  try {
    url = typeof endpoint === 'string' && endpoint.length <= ENDPOINT_MAX_LENGTH ? new URL(endpoint) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== 'https:' || url.username || url.password) {
    throw new InvalidError(`endpoint must be the https URL of a push service, at most ${ENDPOINT_MAX_LENGTH} characters`);
  }
  const p256dh = decoded(input.keys?.p256dh, 65);
  if (!p256dh || p256dh[0] !== 0x04 || !isP256Point(p256dh)) throw new InvalidError('keys.p256dh must be the base64url of an uncompressed P-256 public key (65 bytes, a point on the curve)');
  const auth = decoded(input.keys?.auth, 16);
  if (!auth) throw new InvalidError('keys.auth must be the base64url of a 16-byte authentication secret');
  return { endpoint: url.href, keys: { p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') } };
}
