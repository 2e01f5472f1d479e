import type { ReadStore } from '../read-store';
import type { ReadStoreHarness } from '../read-store.contract';
import type { Incident } from '@im/incidents';
import { incidentProjection } from '../incidents/incident.projection';
import type { NotificationRecord } from '../notifications/notification-store.port';
import { notificationRecord } from '../notifications/notification-store.contract';
import { type LeaseHolder, LeaseLostError, outboundLease, PROJECTIONS_LEASE, TIMERS_LEASE } from './lease-store.port';

const holderA: LeaseHolder = { id: 'api-a-1f2e', pid: 4101, host: 'host-a', kind: 'api' };
const holderB: LeaseHolder = { id: 'projector-b-9c3d', pid: 4102, host: 'host-b', kind: 'projector' };
const LONG = 60_000;
/** Short enough to wait out in a test. */
const SHORT = 300;
const lapse = () => new Promise((resolve) => setTimeout(resolve, SHORT + 200));

/** Two processes on one database: two stores opened by the same harness. */
function twoProcesses(makeHarness: () => ReadStoreHarness) {
  const opened = { harness: undefined as ReadStoreHarness | undefined, a: undefined as unknown as ReadStore, b: undefined as unknown as ReadStore };
  beforeEach(async () => {
    opened.harness = makeHarness();
    opened.a = await opened.harness.open();
    opened.b = await opened.harness.open();
  });
  afterEach(async () => {
    await opened.a.close();
    await opened.b.close();
    await opened.harness!.dispose();
  });
  return opened;
}

/** The behaviour every LeaseStore adapter must show (kept by the read store, over the same harness). */
export function describeLeaseStoreContract(adapter: string, makeHarness: () => ReadStoreHarness): void {
  describe(`LeaseStore contract: ${adapter}`, () => {
    const stores = twoProcesses(makeHarness);

    it('gives a free lease at generation 1 and refuses a second holder while it is held', async () => {
      expect(await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG)).toEqual({ name: PROJECTIONS_LEASE, generation: 1 });
      expect(await stores.b.leases.acquire(PROJECTIONS_LEASE, holderB, LONG)).toBeUndefined();
      // Another lease is another matter.
      expect(await stores.b.leases.acquire(TIMERS_LEASE, holderB, LONG)).toEqual({ name: TIMERS_LEASE, generation: 1 });
    });

    it('keeps the generation and the start when the holder acquires again while it holds the lease', async () => {
      await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG);
      const [first] = await stores.a.leases.list();
      expect(await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG)).toEqual({ name: PROJECTIONS_LEASE, generation: 1 });
      expect((await stores.a.leases.list())[0]).toMatchObject({ generation: 1, since: first.since, holder: holderA });
    });

    it('extends a renewed lease past its first term: no one else takes it', async () => {
      const fence = (await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, SHORT))!;
      const [before] = await stores.a.leases.list();
      expect(await stores.a.leases.renew(fence, holderA, LONG)).toBe(true);
      const [after] = await stores.a.leases.list();
      expect(Date.parse(after.expiresAt!)).toBeGreaterThan(Date.parse(before.expiresAt!));
      await lapse();
      expect(await stores.b.leases.acquire(PROJECTIONS_LEASE, holderB, LONG)).toBeUndefined();
      expect((await stores.b.leases.list())[0].holder).toEqual(holderA);
    });

    it('lets another take a lease whose holder stopped renewing, one generation on; the old holder then cannot renew it', async () => {
      const fence = (await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, SHORT))!;
      await lapse();
      expect(await stores.b.leases.acquire(PROJECTIONS_LEASE, holderB, LONG)).toEqual({ name: PROJECTIONS_LEASE, generation: 2 });
      expect(await stores.a.leases.renew(fence, holderA, LONG)).toBe(false);
      expect(await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG)).toBeUndefined();
      expect((await stores.a.leases.list())[0]).toMatchObject({ holder: holderB, generation: 2 });
    });

    it('frees a released lease at once for another; a stale release leaves the new holder alone', async () => {
      const fence = (await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG))!;
      await stores.a.leases.release(fence, holderA);
      expect((await stores.b.leases.list())[0]).toMatchObject({ name: PROJECTIONS_LEASE, holder: null, since: null, expiresAt: null, generation: 1 });
      expect(await stores.b.leases.acquire(PROJECTIONS_LEASE, holderB, LONG)).toEqual({ name: PROJECTIONS_LEASE, generation: 2 });
      await stores.a.leases.release(fence, holderA);
      expect(await stores.a.leases.renew(fence, holderA, LONG)).toBe(false);
      expect((await stores.b.leases.list())[0]).toMatchObject({ holder: holderB, generation: 2 });
    });

    it('lists every lease taken, by name, with its holder, since when and until when; a lapsed one without a holder', async () => {
      expect(await stores.a.leases.list()).toEqual([]);
      await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG);
      await stores.b.leases.acquire(outboundLease('webhook'), holderB, SHORT);
      const listed = await stores.b.leases.list();
      expect(listed.map(({ name, holder, generation }) => ({ name, holder, generation }))).toEqual([
        { name: outboundLease('webhook'), holder: holderB, generation: 1 },
        { name: PROJECTIONS_LEASE, holder: holderA, generation: 1 },
      ]);
      for (const { since, expiresAt } of listed) {
        expect(new Date(since!).toISOString()).toBe(since);
        expect(new Date(expiresAt!).toISOString()).toBe(expiresAt);
        expect(Date.parse(expiresAt!)).toBeGreaterThan(Date.parse(since!));
      }
      await lapse();
      expect(await stores.a.leases.list()).toEqual([
        { name: outboundLease('webhook'), holder: null, since: null, expiresAt: null, generation: 1 },
        { ...listed[1] },
      ]);
    });
  });
}

const incident = (n: number): Incident => {
  const createdAt = new Date(Date.UTC(2026, 10, 22, 0, 0, n)).toISOString();
  return { id: `INC-${n.toString(16).padStart(8, '0')}`, title: `incident ${n}`, severity: 'SEV-2', status: 'open', createdAt, updatedAt: createdAt };
};

/** A decision of no particular reason (the notification contract's record). */
const decision = (id: string, decision: NotificationRecord['decision']) => notificationRecord(id, { decision, reason: null });

/**
 * The fencing of stores that check the stored generation in each write's
 * transaction (SQLite, PostgreSQL): a process paused past its lease that
 * wakes after another took it over writes nothing more under it.
 */
export function describeLeaseFencingContract(adapter: string, makeHarness: () => ReadStoreHarness): void {
  describe(`Lease fencing: ${adapter}`, () => {
    const stores = twoProcesses(makeHarness);

    /** A holds the lease and writes; it lapses and B takes it over. */
    const takenOver = async (lease: string) => {
      expect(await stores.a.leases.acquire(lease, holderA, SHORT)).toEqual({ name: lease, generation: 1 });
      return async () => {
        await lapse();
        expect(await stores.b.leases.acquire(lease, holderB, LONG)).toEqual({ name: lease, generation: 2 });
      };
    };

    it("refuses the projections' commits of a holder that lost the lease, writing nothing, and takes the new holder's", async () => {
      const takeOver = await takenOver(PROJECTIONS_LEASE);
      await stores.a.commit(incidentProjection.name, [{ key: incident(1).id, doc: incident(1), position: 1n }], 1n);
      await takeOver();
      await expect(
        stores.a.commitBatch([{ projection: incidentProjection.name, writes: [{ key: incident(2).id, doc: incident(2), position: 2n }], position: 2n }]),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect(await stores.b.checkpoint(incidentProjection.name)).toBe(1n);
      expect(await stores.b.incidents.findById(incident(2).id)).toBeUndefined();
      await stores.b.commit(incidentProjection.name, [{ key: incident(2).id, doc: incident(2), position: 2n }], 2n);
      expect(await stores.a.checkpoint(incidentProjection.name)).toBe(2n);
      expect(await stores.a.incidents.findById(incident(2).id)).toEqual(incident(2));
    });

    it("refuses a channel's outbound commits of a holder that lost its lease; other channels' go on", async () => {
      const takeOver = await takenOver(outboundLease('webhook'));
      await stores.a.outbound.commit([{ consumer: 'webhook:w1', position: 1n, attempts: [] }]);
      await takeOver();
      await expect(stores.a.outbound.commit([{ consumer: 'webhook:w1', position: 2n, attempts: [] }])).rejects.toBeInstanceOf(LeaseLostError);
      expect(await stores.b.outbound.checkpoint('webhook:w1')).toBe(1n);
      await stores.b.outbound.commit([{ consumer: 'webhook:w1', position: 2n, attempts: [] }]);
      expect(await stores.a.outbound.checkpoint('webhook:w1')).toBe(2n);
      // A never competed for the notifications' lease here: its commits there are not fenced.
      await stores.a.outbound.commit([{ consumer: 'notification:alice', position: 3n, attempts: [] }]);
      expect(await stores.b.outbound.checkpoint('notification:alice')).toBe(3n);
    });

    it('refuses the notification decisions of a holder that lost the lease', async () => {
      const takeOver = await takenOver(outboundLease('notification'));
      await stores.a.notifications.save(decision('n1', 'HELD'));
      await takeOver();
      await expect(stores.a.notifications.save(decision('n1', 'SENT'))).rejects.toBeInstanceOf(LeaseLostError);
      expect(await stores.b.notifications.find(['n1'])).toEqual([decision('n1', 'HELD')]);
      await stores.b.notifications.save(decision('n1', 'SENT'));
      expect(await stores.a.notifications.find(['n1'])).toEqual([decision('n1', 'SENT')]);
    });

    it('refuses the writes of a process that forgot its lease, or was refused it, until it acquires it again', async () => {
      await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG);
      stores.a.leases.forget(PROJECTIONS_LEASE);
      await expect(stores.a.commit(incidentProjection.name, [], 1n)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await stores.b.leases.acquire(PROJECTIONS_LEASE, holderB, LONG)).toBeUndefined();
      await expect(stores.b.commit(incidentProjection.name, [], 1n)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await stores.a.leases.acquire(PROJECTIONS_LEASE, holderA, LONG)).toEqual({ name: PROJECTIONS_LEASE, generation: 1 });
      await stores.a.commit(incidentProjection.name, [], 1n);
      expect(await stores.b.checkpoint(incidentProjection.name)).toBe(1n);
    });
  });
}
