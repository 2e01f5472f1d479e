import { type LeaseRecord, outboundLease, PROJECTIONS_LEASE, TIMERS_LEASE } from '@im/read-models';
import { NOTIFICATION_CHANNEL, WEBHOOK_CHANNEL } from '@im/outbound';

/** The leases there are, in the order the listing (and validate) shows them. */
export const LEASE_NAMES = [PROJECTIONS_LEASE, outboundLease(WEBHOOK_CHANNEL), outboundLease(NOTIFICATION_CHANNEL), TIMERS_LEASE];

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
