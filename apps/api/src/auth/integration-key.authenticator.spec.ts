import { UnauthorizedException } from '@nestjs/common';
import { formatIntegrationKey, hashIntegrationKey } from '@im/incidents';
import type { IntegrationKeyQueries, IntegrationKeyRecord } from '@im/read-models';
import { IntegrationKeyAuthenticator } from './integration-key.authenticator';

const ID = '00000000000000aa';
const KEY = formatIntegrationKey(ID, 'c3'.repeat(32));
const record = (over: Partial<IntegrationKeyRecord> = {}): IntegrationKeyRecord => ({
  id: ID, name: 'alertmanager', roles: ['timeline.writer'], keyHash: hashIntegrationKey(KEY), createdAt: 'then', createdBy: 'admin', revokedAt: null, revokedBy: null, ...over,
});

function authenticator(stored: IntegrationKeyRecord | undefined) {
  const lookups: string[] = [];
  const keys: IntegrationKeyQueries = {
    findById: async (id) => {
      lookups.push(id);
      return id === stored?.id ? stored : undefined;
    },
    list: async () => [],
  };
  return { lookups, auth: new IntegrationKeyAuthenticator(keys) };
}

describe('IntegrationKeyAuthenticator', () => {
  it('authenticates a valid key as integration:<id> with its roles, the lowest clearance and no data access', async () => {
    const { auth } = authenticator(record());
    expect(await auth.authenticate(KEY)).toEqual({ sub: `integration:${ID}`, roles: ['timeline.writer'], clearance: 'public', dataAccess: [], authenticated: true, integrationKey: ID });
  });

  it.each([
    ['a wrong secret', record(), formatIntegrationKey(ID, 'd4'.repeat(32))],
    ['an unknown id', record(), formatIntegrationKey('00000000000000bb', 'c3'.repeat(32))],
    ['a revoked key', record({ revokedAt: 'now' }), KEY],
    ['a malformed key', record(), `imk_${ID}`],
  ])('refuses %s with the same answer, after one lookup like any other', async (_, stored, presented) => {
    const { auth, lookups } = authenticator(stored);
    await expect(auth.authenticate(presented)).rejects.toEqual(new UnauthorizedException('The integration key is not valid: unknown, revoked or mistyped'));
    expect(lookups).toHaveLength(1);
  });

  it('reads the keys on every request: nothing is remembered past a revocation', async () => {
    const stored = record();
    const { auth, lookups } = authenticator(stored);
    await auth.authenticate(KEY);
    stored.revokedAt = 'now';
    await expect(auth.authenticate(KEY)).rejects.toBeInstanceOf(UnauthorizedException);
    expect(lookups).toEqual([ID, ID]);
  });
});
