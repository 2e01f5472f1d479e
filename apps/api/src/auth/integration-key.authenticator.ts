import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { integrationKeyIdOf, integrationKeyMatches } from '@im/incidents';
import { INTEGRATION_KEY_QUERIES, type IntegrationKeyQueries, type IntegrationKeyRecord } from '@im/read-models';
import type { Principal } from '@im/access';

/** Looked up and compared against when the presented key names no id: the same work as for a real one. */
const DECOY_ID = '0000000000000000';
const DECOY_HASH = '0'.repeat(64);

/**
 * Who a key authenticates: `integration:<id>`, the key's roles, and the lowest
 * clearance with no data access: a key writes, and reads nothing it wrote.
 */
export const integrationKeyPrincipal = (key: Pick<IntegrationKeyRecord, 'id' | 'roles'>): Principal => ({
  sub: `integration:${key.id}`,
  roles: [...key.roles],
  clearance: 'public',
  dataAccess: [],
  authenticated: true,
  integrationKey: key.id,
});

/**
 * Checks an `imk_…` bearer against the integration keys read model on every
 * request, with no cache: the read model is shared by every api instance and
 * shows a revocation before its DELETE answers (read-your-writes), so the next
 * request on any instance is refused. A lookup by primary key costs what
 * checking that a cached answer is still current would.
 *
 * An unknown id, a mistyped key, a wrong secret and a revoked key all do the
 * same work (one lookup, one SHA-256, one constant-time compare) and get the
 * same answer, so neither timing nor wording tells which ids exist.
 */
@Injectable()
export class IntegrationKeyAuthenticator {
  constructor(@Inject(INTEGRATION_KEY_QUERIES) private readonly keys: IntegrationKeyQueries) {}

  async authenticate(presented: string): Promise<Principal> {
    const id = integrationKeyIdOf(presented);
    const record = await this.keys.findById(id ?? DECOY_ID);
    const matches = integrationKeyMatches(presented, record?.keyHash ?? DECOY_HASH);
    if (id === undefined || !record || !matches || record.revokedAt !== null) {
      throw new UnauthorizedException('The integration key is not valid: unknown, revoked or mistyped');
    }
    return integrationKeyPrincipal(record);
  }
}
