/** Nest injection token of the LeaseStore port. */
export const LEASE_STORE = Symbol('LEASE_STORE');

/** The process that holds a lease, as `GET /api/v1/leases` shows it. */
export interface LeaseHolder {
  /** Unique per process start (pids repeat across hosts and restarts): what the store compares. */
  id: string;
  pid: number;
  host: string;
  kind: 'api' | 'projector';
}

/** One lease as stored: who holds it (null once it expired or was released), since when, until when. */
export interface LeaseRecord {
  name: string;
  holder: LeaseHolder | null;
  /** When the current holder took it; null while none holds it. */
  since: string | null;
  /** When it lapses unless renewed (the database's clock); null while none holds it. */
  expiresAt: string | null;
  /** Grows by one at every change of holder: the fencing token. */
  generation: number;
}

/** A lease this process holds: what its writes are fenced with. */
export interface Fence {
  name: string;
  generation: number;
}

/** A write under a lease the process no longer holds (another took it over): refused, nothing written. */
export class LeaseLostError extends Error {
  constructor(readonly lease: string) {
    super(`The lease ${lease} is held by another process now: this process stopped writing under it`);
  }
}

/**
 * Leases kept in the read store's database, with the database's clock. At
 * most one holder per name at a time; a holder that stops renewing loses it
 * once `ttlMs` has passed. Once a process has competed for a lease (acquire),
 * the store fences that lease's writes made through it (projection commits for
 * `projections`, outbound commits for `outbound:<channel>`, notification
 * decisions for `outbound:notification`): they commit only while the
 * generation it holds is still the stored one, and throw LeaseLostError
 * otherwise. Stores that one process alone writes (SQLite) may skip the check.
 */
export interface LeaseStore {
  /** Takes the lease when none holds it or its holder's time ran out (the generation grows); undefined while another holds it. Already held by `holder`: renewed, same generation. */
  acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<Fence | undefined>;
  /** Extends the lease when `fence` is still the stored generation; false when it was lost. */
  renew(fence: Fence, holder: LeaseHolder, ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once (a clean shutdown), so another need not wait for it to lapse. */
  release(fence: Fence, holder: LeaseHolder): Promise<void>;
  /** Forgets a lease this process lost or gave up: its writes are refused until it is acquired again. */
  forget(name: string): void;
  /** Every lease ever taken, by name; a lapsed one shows holder null. */
  list(): Promise<LeaseRecord[]>;
}

/** The leases there are: the projections, each outbound channel, the timers. */
export const PROJECTIONS_LEASE = 'projections';
export const TIMERS_LEASE = 'timers';
export const outboundLease = (channel: string) => `outbound:${channel}`;
