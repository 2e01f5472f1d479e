import type { LeaseRecord } from '@im/read-models';

/** One lease as `GET /api/v1/leases` shows it (docs/api.md, "Leases"). */
export interface LeaseView {
  name: string;
  holder: { pid: number; host: string; kind: 'api' | 'projector' } | null;
  since: string | null;
  expires_at: string | null;
  generation: number;
}

/** Every lease there is, in `names` order, one never taken shown free at generation 0; the holder's id (its process start) stays inside. */
export function leaseViews(names: readonly string[], stored: LeaseRecord[]): LeaseView[] {
  const byName = new Map(stored.map((lease) => [lease.name, lease]));
  return names.map((name) => {
    const lease = byName.get(name);
    const holder = lease?.holder ? { pid: lease.holder.pid, host: lease.holder.host, kind: lease.holder.kind } : null;
    return { name, holder, since: holder ? lease!.since : null, expires_at: holder ? lease!.expiresAt : null, generation: lease?.generation ?? 0 };
  });
}
