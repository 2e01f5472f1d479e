import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '@im/postgres-runtime';
import type { Fence, LeaseHolder, LeaseRecord, LeaseStore } from '../../leases/lease-store.port';
import { HeldLeases, type StoredHolding } from '../../leases/held-leases';
import { rowsOf, run } from './postgres-sql';

// A lease is taken when none holds it, its time ran out, or it is already ours; the generation grows only when the holder changes
// (a holder whose time ran out with no one taking over keeps its fence: no one else wrote meanwhile). Times are the database's clock.
const ACQUIRE = `UPDATE leases SET
    generation = CASE WHEN holder_id = $2 THEN generation ELSE generation + 1 END,
    since = CASE WHEN holder_id = $2 THEN since ELSE now() END,
    holder_id = $2, holder_pid = $3, holder_host = $4, holder_kind = $5,
    expires_at = now() + $6::double precision * interval '1 millisecond'
  WHERE name = $1 AND (holder_id IS NULL OR expires_at <= now() OR holder_id = $2)
  RETURNING generation`;

interface LeaseRow {
  name: string;
  generation: bigint;
  live: boolean;
  holderId: string | null;
  pid: number | null;
  host: string | null;
  kind: LeaseHolder['kind'] | null;
  since: Date | null;
  expiresAt: Date | null;
}

/** Leases in the read store's database (table `leases`), with PostgreSQL's clock; it also fences the store's writes made under them (`fenced`). */
export class PostgresLeaseStore implements LeaseStore {
  private readonly held = new HeldLeases();

  constructor(private readonly pool: Pool) {}

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<Fence | undefined> {
    await run(this.pool, ['INSERT INTO leases (name, generation) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING', [name]]);
    const [row] = await rowsOf<{ generation: bigint }>(this.pool, ACQUIRE, [name, holder.id, holder.pid, holder.host, holder.kind, ttlMs]);
    const fence = row && { name, generation: Number(row.generation) };
    this.held.acquired(name, holder, fence);
    return fence;
  }

  async renew({ name, generation }: Fence, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    const renewed = await run(this.pool, [
      `UPDATE leases SET expires_at = now() + $4::double precision * interval '1 millisecond' WHERE name = $1 AND generation = $2 AND holder_id = $3`,
      [name, generation, holder.id, ttlMs],
    ]);
    if (renewed === 0) this.held.forget(name);
    return renewed > 0;
  }

  /** The generation stays: the next acquire, by whoever, grows it. */
  async release({ name, generation }: Fence, holder: LeaseHolder): Promise<void> {
    this.held.forget(name);
    await run(this.pool, [
      `UPDATE leases SET holder_id = NULL, holder_pid = NULL, holder_host = NULL, holder_kind = NULL, since = NULL, expires_at = NULL
       WHERE name = $1 AND generation = $2 AND holder_id = $3`,
      [name, generation, holder.id],
    ]);
  }

  forget(name: string): void {
    this.held.forget(name);
  }

  async list(): Promise<LeaseRecord[]> {
    const rows = await rowsOf<LeaseRow>(
      this.pool,
      `SELECT name, generation, coalesce(expires_at > now(), false) AS live, holder_id AS "holderId", holder_pid AS pid, holder_host AS host, holder_kind AS kind,
         since, expires_at AS "expiresAt"
       FROM leases ORDER BY name`,
    );
    return rows.map(({ name, generation, live, holderId, pid, host, kind, since, expiresAt }) => ({
      name,
      generation: Number(generation),
      holder: live ? { id: holderId!, pid: pid!, host: host!, kind: kind! } : null,
      since: live ? since!.toISOString() : null,
      expiresAt: live ? expiresAt!.toISOString() : null,
    }));
  }

  /**
   * Runs `work` in one transaction, fenced by the leases `names` that this
   * process competed for: refused with LeaseLostError, nothing written, unless
   * each still names this process at the generation it holds (a lost one is
   * refused before any query). The row is read FOR SHARE: a takeover's UPDATE
   * of it waits until this transaction ends, so the check and the write are
   * atomic, and the new holder reads what this one committed.
   */
  async fenced<T>(names: string[], work: (client: PoolClient) => Promise<T>): Promise<T> {
    const held = [...new Set(names)].sort().flatMap((name) => {
      const lease = this.held.required(name);
      return lease ? [{ name, lease }] : [];
    });
    return inTransaction(this.pool, async (client) => {
      for (const { name, lease } of held) {
        const [stored] = await rowsOf<StoredHolding>(client, 'SELECT generation, holder_id AS "holderId" FROM leases WHERE name = $1 FOR SHARE', [name]);
        HeldLeases.confirm(lease, stored);
      }
      return work(client);
    });
  }
}
