import type Database from 'better-sqlite3';
import type { Fence, LeaseHolder, LeaseRecord, LeaseStore } from '../../leases/lease-store.port';
import { HeldLeases, type StoredHolding } from '../../leases/held-leases';

// As PostgreSQL's (postgres-lease-store.ts): taken when free, lapsed or already ours; the generation grows only when the holder changes.
const ACQUIRE = `UPDATE leases SET
    generation = CASE WHEN holder_id IS @id THEN generation ELSE generation + 1 END,
    since = CASE WHEN holder_id IS @id THEN since ELSE @now END,
    holder_id = @id, holder_pid = @pid, holder_host = @host, holder_kind = @kind, expires_at = @expiresAt
  WHERE name = @name AND (holder_id IS NULL OR expires_at <= @now OR holder_id IS @id)
  RETURNING generation`;

interface LeaseRow {
  name: string;
  generation: number;
  holder_id: string | null;
  holder_pid: number | null;
  holder_host: string | null;
  holder_kind: LeaseHolder['kind'] | null;
  since: string | null;
  expires_at: string | null;
}

/**
 * Leases in the read models' SQLite file (table `leases`), which no rebuild
 * touches. Times are this machine's clock, as ISO text (which sorts in time
 * order): every process that opens the file runs on this machine (SQLite's
 * WAL needs shared memory), so the JavaScript clock is the one SQLite's own
 * `now` would read, and passing it in keeps one format from end to end.
 * `guard` fences the writes made under a lease in their transaction.
 */
export class SqliteLeaseStore implements LeaseStore {
  private readonly held = new HeldLeases();
  private readonly take: (name: string, holder: LeaseHolder, ttlMs: number) => number | undefined;
  private readonly extend;
  private readonly giveUp;
  private readonly selectAll;
  private readonly selectHolding;

  constructor(db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS leases (
      name TEXT PRIMARY KEY, holder_id TEXT, holder_pid INTEGER, holder_host TEXT, holder_kind TEXT,
      since TEXT, expires_at TEXT, generation INTEGER NOT NULL
    );`);
    const insert = db.prepare(`INSERT INTO leases (name, generation) VALUES (?, 0) ON CONFLICT (name) DO NOTHING`);
    const acquire = db.prepare(ACQUIRE).pluck();
    this.take = db.transaction((name: string, { id, pid, host, kind }: LeaseHolder, ttlMs: number) => {
      const now = Date.now();
      insert.run(name);
      return acquire.get({ name, id, pid, host, kind, now: iso(now), expiresAt: iso(now + ttlMs) }) as number | undefined;
    });
    this.extend = db.prepare(`UPDATE leases SET expires_at = @expiresAt WHERE name = @name AND generation = @generation AND holder_id = @id`);
    this.giveUp = db.prepare(
      `UPDATE leases SET holder_id = NULL, holder_pid = NULL, holder_host = NULL, holder_kind = NULL, since = NULL, expires_at = NULL
       WHERE name = @name AND generation = @generation AND holder_id = @id`,
    );
    this.selectAll = db.prepare(`SELECT * FROM leases ORDER BY name`);
    this.selectHolding = db.prepare(`SELECT generation, holder_id AS holderId FROM leases WHERE name = ?`);
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<Fence | undefined> {
    const generation = this.take(name, holder, ttlMs);
    const fence = generation === undefined ? undefined : { name, generation };
    this.held.acquired(name, holder, fence);
    return fence;
  }

  async renew({ name, generation }: Fence, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    const renewed = this.extend.run({ name, generation, id: holder.id, expiresAt: iso(Date.now() + ttlMs) }).changes > 0;
    if (!renewed) this.held.forget(name);
    return renewed;
  }

  async release({ name, generation }: Fence, holder: LeaseHolder): Promise<void> {
    this.held.forget(name);
    this.giveUp.run({ name, generation, id: holder.id });
  }

  forget(name: string): void {
    this.held.forget(name);
  }

  async list(): Promise<LeaseRecord[]> {
    const now = iso(Date.now());
    return (this.selectAll.all() as LeaseRow[]).map((row) => {
      const live = row.expires_at !== null && row.expires_at > now;
      return {
        name: row.name,
        generation: row.generation,
        holder: live ? { id: row.holder_id!, pid: row.holder_pid!, host: row.holder_host!, kind: row.holder_kind! } : null,
        since: live ? row.since : null,
        expiresAt: live ? row.expires_at : null,
      };
    });
  }

  /**
   * The check a write under the leases `names` runs first in its transaction
   * (SqliteWrites.transaction): undefined when this process never competed for
   * any of them; throws LeaseLostError at once when it lost one.
   */
  guard(names: string[]): (() => void) | undefined {
    const held = [...new Set(names)].flatMap((name) => {
      const lease = this.held.required(name);
      return lease ? [{ name, lease }] : [];
    });
    if (held.length === 0) return undefined;
    return () => held.forEach(({ name, lease }) => HeldLeases.confirm(lease, this.selectHolding.get(name) as StoredHolding | undefined));
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
