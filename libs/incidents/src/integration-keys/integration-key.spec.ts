import { createHash } from 'node:crypto';
import {
  formatIntegrationKey,
  hashIntegrationKey,
  INTEGRATION_KEY_PATTERN,
  integrationKeyIdOf,
  integrationKeyMatches,
  looksLikeIntegrationKey,
} from './integration-key';

const ID = '3f9c2a7e5b1d8c04';
const SECRET = 'a1'.repeat(32);
const KEY = formatIntegrationKey(ID, SECRET);

describe('integration key format', () => {
  it('is imk_, the 16-hex id, _, the 64-hex secret: a prefix secret scanners can match', () => {
    expect(KEY).toBe(`imk_${ID}_${SECRET}`);
    expect(KEY).toMatch(INTEGRATION_KEY_PATTERN);
    expect(integrationKeyIdOf(KEY)).toBe(ID);
  });

  it('tells a key from a JWT by its prefix', () => {
    expect(looksLikeIntegrationKey(KEY)).toBe(true);
    expect(looksLikeIntegrationKey('eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBe(false);
  });

  it.each([`imk_${ID}`, `imk_${ID}_${SECRET}0`, `imk_${ID.toUpperCase()}_${SECRET}`, `IMK_${ID}_${SECRET}`, `imk_${ID}_${SECRET.slice(1)}g`])('names no id in the malformed %s', (text) => {
    expect(integrationKeyIdOf(text)).toBeUndefined();
  });
});

describe('integration key hash', () => {
  it('is the hex SHA-256 of the whole key', () => {
    expect(hashIntegrationKey(KEY)).toBe(createHash('sha256').update(KEY).digest('hex'));
    expect(hashIntegrationKey(KEY)).not.toContain(SECRET);
  });

  it('matches the key it was made from, and nothing else', () => {
    const stored = hashIntegrationKey(KEY);
    expect(integrationKeyMatches(KEY, stored)).toBe(true);
    expect(integrationKeyMatches(formatIntegrationKey(ID, 'b2'.repeat(32)), stored)).toBe(false);
    expect(integrationKeyMatches(KEY, '0'.repeat(64))).toBe(false);
    // A damaged stored hash is no match, not a throw.
    expect(integrationKeyMatches(KEY, 'abc')).toBe(false);
  });
});
