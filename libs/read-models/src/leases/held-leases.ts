import { type Fence, type LeaseHolder, LeaseLostError } from './lease-store.port';

/** A lease this process holds, and the holder it holds it as: what a fenced write compares with the stored row. */
export interface HeldLease {
  fence: Fence;
  holder: LeaseHolder;
}

/** A lease's row as a fenced write reads it in its transaction. */
export interface StoredHolding {
  generation: number | bigint;
  holderId: string | null;
}

/**
 * What a store remembers of the leases its process competed for, by name:
 * absent (never competed: writes are not fenced, as with one process alone or
 * in a contract suite), held (writes are checked against the stored row), or
 * null (refused, lost or given up: writes throw LeaseLostError at once).
 */
export class HeldLeases {
  private readonly leases = new Map<string, HeldLease | null>();

  /** What an acquire answered: the fence, or undefined when another holds the lease. */
  acquired(name: string, holder: LeaseHolder, fence: Fence | undefined): void {
    this.leases.set(name, fence ? { fence, holder } : null);
  }

  forget(name: string): void {
    this.leases.set(name, null);
  }

  /** The lease a write under `name` must still hold; undefined when the process never competed for it. Throws LeaseLostError once it lost it. */
  required(name: string): HeldLease | undefined {
    const held = this.leases.get(name);
    if (held === null) throw new LeaseLostError(name);
    return held;
  }

  /** Throws LeaseLostError (and the write is refused) unless the stored row still names this holder at this generation. */
  static confirm({ fence, holder }: HeldLease, stored: StoredHolding | undefined): void {
    if (stored === undefined || Number(stored.generation) !== fence.generation || stored.holderId !== holder.id) throw new LeaseLostError(fence.name);
  }
}
