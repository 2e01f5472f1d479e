import { hostname } from 'node:os';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

interface Lease {
  name: string;
  holder: { pid: number; host: string; kind: string } | null;
  since: string | null;
  expires_at: string | null;
  generation: number;
}

describe('GET /api/v1/leases', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('needs a token even in development: it names the processes and their hosts', async () => {
    expectError(await t.http().get('/api/v1/leases'), 401);
  });

  it('shows an embedded api holding every lease: the projections, each outbound channel, the timers', async () => {
    // Any valid token will do, without a role.
    const res = await t.http().get('/api/v1/leases').set(bearer(token({ sub: 'viewer', roles: [] }))).expect(200);
    const leases = res.body.leases as Lease[];
    expect(leases.map((lease) => lease.name)).toEqual(['projections', 'outbound:webhook', 'outbound:notification', 'timers']);
    for (const lease of leases) {
      expect(lease.holder).toEqual({ pid: process.pid, host: hostname(), kind: 'api' });
      expect(lease.generation).toBeGreaterThanOrEqual(1);
      expect(Date.parse(lease.expires_at!)).toBeGreaterThan(Date.parse(lease.since!));
    }
  });
});
