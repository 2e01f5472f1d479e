import type { ReadStoreHarness } from '../read-store.contract';
import type { NotificationRecord } from './notification-store.port';

/** A stored decision, as the contracts that save one write it. */
export const notificationRecord = (id: string, over: Partial<NotificationRecord> = {}): NotificationRecord => ({
  id,
  responder: 'alice',
  incidentId: 'INC-0000beef',
  channel: 'email',
  trigger: 'assigned',
  eventId: `evt-${id}`,
  position: 7n,
  decision: 'SUPPRESSED',
  reason: 'severity_filter',
  createdAt: '2026-11-22T10:00:00.000Z',
  sentAt: null,
  dueAt: null,
  content: { incident_id: 'INC-0000beef', title: 'DB down', severity: 'SEV-2', status: 'open', trigger: 'assigned', url: 'https://im.example/incidents/INC-0000beef' },
  ...over,
});

/** The behaviour every NotificationStore adapter must show (it is opened with the read store, over the same harness). */
export function describeNotificationStoreContract(adapter: string, makeHarness: () => ReadStoreHarness): void {
  describe(`NotificationStore contract: ${adapter}`, () => {
    let harness: ReadStoreHarness;
    let close: () => Promise<void>;
    let store: Awaited<ReturnType<ReadStoreHarness['open']>>['notifications'];

    beforeEach(async () => {
      harness = makeHarness();
      const opened = await harness.open();
      store = opened.notifications;
      close = () => opened.close();
    });
    afterEach(async () => {
      await close();
      await harness.dispose();
    });

    it('saves a record whole and finds it by id, the same record when a held one is later sent', async () => {
      const held = notificationRecord('n1', { decision: 'HELD', reason: 'quiet_hours', dueAt: '2026-11-22T18:00:00.000Z', position: 9_007_199_254_740_993n });
      await store.save(held);
      expect(await store.find(['n1', 'n9'])).toEqual([held]);
      const sent = { ...held, decision: 'SENT' as const, reason: null, sentAt: '2026-11-22T18:00:01.000Z', dueAt: null };
      await store.save(sent);
      expect(await store.find(['n1'])).toEqual([sent]);
      expect(await store.find([])).toEqual([]);
    });

    it("keeps a page's step and round with its content: a page sent after a restart still says them", async () => {
      const page = notificationRecord('p1', { trigger: 'paged', decision: 'HELD', reason: 'sending', dueAt: '2026-11-22T10:00:00.000Z' });
      page.content = { ...page.content, trigger: 'paged', page: { step: 2, round: 3 } };
      await store.save(page);
      expect(await store.due('email', '2026-11-22T10:00:00.000Z', 10)).toEqual([page]);
    });

    it('answers the records of a channel that are due, earliest first', async () => {
      await store.save(notificationRecord('late', { decision: 'HELD', dueAt: '2026-11-22T19:00:00.000Z' }));
      await store.save(notificationRecord('early', { decision: 'HELD', dueAt: '2026-11-22T18:00:00.000Z' }));
      await store.save(notificationRecord('push', { channel: 'push', decision: 'HELD', dueAt: '2026-11-22T17:00:00.000Z' }));
      await store.save(notificationRecord('not-held'));
      expect((await store.due('email', '2026-11-22T18:30:00.000Z', 10)).map((r) => r.id)).toEqual(['early']);
      expect((await store.due('email', '2026-11-22T19:00:00.000Z', 10)).map((r) => r.id)).toEqual(['early', 'late']);
      expect((await store.due('email', '2026-11-22T19:00:00.000Z', 1)).map((r) => r.id)).toEqual(['early']);
    });

    it("lists one responder's records newest first, and no one else's", async () => {
      await store.save(notificationRecord('a', { createdAt: '2026-11-22T10:00:00.000Z' }));
      await store.save(notificationRecord('c', { createdAt: '2026-11-22T11:00:00.000Z' }));
      await store.save(notificationRecord('b', { createdAt: '2026-11-22T11:00:00.000Z' }));
      await store.save(notificationRecord('x', { responder: 'bob', createdAt: '2026-11-22T12:00:00.000Z' }));
      expect((await store.listFor('alice', 10)).map((r) => r.id)).toEqual(['c', 'b', 'a']);
      expect((await store.listFor('alice', 2)).map((r) => r.id)).toEqual(['c', 'b']);
      expect((await store.listFor('carol', 10))).toEqual([]);
    });
  });
}
