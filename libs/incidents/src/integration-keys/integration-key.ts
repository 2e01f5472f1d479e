import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * An integration key as its holder sends it: `imk_<id>_<secret>`.
 *
 * - `imk_` marks it for secret scanners and tells the authenticator it is no JWT;
 * - `<id>`: 16 lowercase hex characters, the key's public id (what the list
 *   shows and DELETE names), so the key is found without a search;
 * - `<secret>`: 64 lowercase hex characters, 256 random bits.
 *
 * Only the SHA-256 of the whole key is kept. A key carries 256 random bits, so
 * nobody can guess it back from its hash: a slow password hash protects short,
 * human-chosen secrets and would only slow every request here.
 */
export const INTEGRATION_KEY_PREFIX = 'imk_';
export const INTEGRATION_KEY_PATTERN = /^imk_([0-9a-f]{16})_[0-9a-f]{64}$/;
export const INTEGRATION_KEY_ID_BYTES = 8;
export const INTEGRATION_KEY_SECRET_BYTES = 32;

export const formatIntegrationKey = (id: string, secret: string): string => `${INTEGRATION_KEY_PREFIX}${id}_${secret}`;

/** Whether a bearer credential is meant as an integration key (and not as a JWT). */
export const looksLikeIntegrationKey = (credential: string): boolean => credential.startsWith(INTEGRATION_KEY_PREFIX);

/** The id a well-formed key names; undefined for anything else. */
export const integrationKeyIdOf = (key: string): string | undefined => INTEGRATION_KEY_PATTERN.exec(key)?.[1];

/** What is stored of a key: the hex SHA-256 of its whole text. */
export const hashIntegrationKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Compares the presented key's hash with a stored one in constant time (both are 64 hex characters). */
export const integrationKeyMatches = (key: string, storedHash: string): boolean => {
  const presented = Buffer.from(hashIntegrationKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
};
