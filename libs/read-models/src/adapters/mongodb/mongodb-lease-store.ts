import type { Connection } from 'mongoose';
import type { Fence, LeaseHolder, LeaseRecord, LeaseStore } from '../../leases/lease-store.port';
import { HeldLeases } from '../../leases/held-leases';

interface StoredLease {
  _id: string;
  holder: LeaseHolder | null;
  since: Date | null;
  expiresAt: Date | null;
  generation: number;
}

/**
 * Leases in MongoDB (collection `leases`), with the server's clock (`$$NOW`).
 * Writes under a lease are not fenced against the stored generation here (a
 * commit is no transaction in this store): a process that learnt it lost a
 * lease (forget, or a renew answered false) is refused at once
 * (`refuseIfLost`), but one paused past its lease may still write once before
 * it learns. The projections' writes are idempotent by position; outbound
 * ones may record an attempt twice.
 */
export class MongoLeaseStore implements LeaseStore {
  private readonly held = new HeldLeases();
  private readonly leases;

  constructor(connection: Connection) {
    // The driver's own collection: an update pipeline (`$$NOW`, the old holder compared in the update) and findOneAndUpdate's plain answer.
    this.leases = connection.collection<StoredLease>('leases');
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<Fence | undefined> {
    // Inserts the row once; two processes inserting it at once do not fail: the server retries an upsert on _id that met a duplicate key.
    await this.leases.updateOne({ _id: name }, { $setOnInsert: { holder: null, since: null, expiresAt: null, generation: 0 } }, { upsert: true });
    const ours = { $eq: ['$holder.id', { $literal: holder.id }] };
    // Taken when free, lapsed or already ours; the generation grows only when the holder changes. Without a match: null (driver 7: the document, or null).
    const taken = await this.leases.findOneAndUpdate(
      { _id: name, $or: [{ holder: null }, { 'holder.id': holder.id }, { $expr: { $lte: ['$expiresAt', '$$NOW'] } }] },
      [
        {
          $set: {
            generation: { $cond: [ours, '$generation', { $add: ['$generation', 1] }] },
            since: { $cond: [ours, '$since', '$$NOW'] },
            holder: { $literal: holder },
            expiresAt: { $add: ['$$NOW', ttlMs] },
          },
        },
      ],
      { returnDocument: 'after', projection: { generation: 1 } },
    );
    const fence = taken ? { name, generation: taken.generation } : undefined;
    this.held.acquired(name, holder, fence);
    return fence;
  }

  async renew({ name, generation }: Fence, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    const { matchedCount } = await this.leases.updateOne({ _id: name, generation, 'holder.id': holder.id }, [{ $set: { expiresAt: { $add: ['$$NOW', ttlMs] } } }]);
    if (matchedCount === 0) this.held.forget(name);
    return matchedCount > 0;
  }

  async release({ name, generation }: Fence, holder: LeaseHolder): Promise<void> {
    this.held.forget(name);
    await this.leases.updateOne({ _id: name, generation, 'holder.id': holder.id }, { $set: { holder: null, since: null, expiresAt: null } });
  }

  forget(name: string): void {
    this.held.forget(name);
  }

  async list(): Promise<LeaseRecord[]> {
    const rows = await this.leases.aggregate<StoredLease & { live: boolean }>([{ $sort: { _id: 1 } }, { $set: { live: { $gt: ['$expiresAt', '$$NOW'] } } }]).toArray();
    return rows.map(({ _id, holder, since, expiresAt, generation, live }) => ({
      name: _id,
      generation,
      holder: live ? holder : null,
      since: live ? since!.toISOString() : null,
      expiresAt: live ? expiresAt!.toISOString() : null,
    }));
  }

  /** Throws LeaseLostError when this process competed for one of the leases `names` and lost it (see the class). */
  refuseIfLost(names: string[]): void {
    names.forEach((name) => this.held.required(name));
  }
}
