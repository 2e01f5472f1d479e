import type { ReadStoreHarness } from '../read-store.contract';
import type { NewDeliveryAttempt } from './outbound-store.port';

let sequence = 0;
const attempt = (targetId: string, eventId: string, over: Partial<NewDeliveryAttempt> = {}): NewDeliveryAttempt => {
  sequence += 1;
  return {
    id: `a${String(sequence).padStart(6, '0')}`,
    channel: 'webhook',
    targetId,
    eventId,
    // One position per event, as in a ledger: e1 at 1, e2 at 2.
    position: BigInt(eventId.slice(1)),
    messageId: `msg_${targetId}_${eventId}`,
    attemptedAt: new Date(Date.UTC(2026, 10, 22, 10, 0, sequence)).toISOString(),
    statusCode: 500,
    error: 'unsuccessful_status',
    durationMs: 12,
    ...over,
  };
};

/** The behaviour every OutboundStore adapter must show (it is opened with the read store, over the same harness). */
export function describeOutboundStoreContract(adapter: string, makeHarness: () => ReadStoreHarness): void {
  describe(`OutboundStore contract: ${adapter}`, () => {
    let harness: ReadStoreHarness;
    let close: () => Promise<void>;
    let store: Awaited<ReturnType<ReadStoreHarness['open']>>['outbound'];

    beforeEach(async () => {
      harness = makeHarness();
      const opened = await harness.open();
      store = opened.outbound;
      close = () => opened.close();
    });
    afterEach(async () => {
      await close();
      await harness.dispose();
    });

    it('keeps one checkpoint per consumer, only ever moving forward', async () => {
      expect(await store.checkpoint('webhook:w1')).toBeUndefined();
      await store.commit([{ consumer: 'webhook:w1', position: 10n, attempts: [] }, { consumer: 'webhook:w2', position: 3n, attempts: [] }]);
      await store.commit([{ consumer: 'webhook:w1', position: 4n, attempts: [] }]);
      expect(await store.checkpoint('webhook:w1')).toBe(10n);
      expect(await store.checkpoint('webhook:w2')).toBe(3n);
      // Positions beyond 2^53 survive (KurrentDB's are larger still, which SQLite is never paired with).
      await store.commit([{ consumer: 'webhook:w2', position: 9_007_199_254_740_993n, attempts: [] }]);
      expect(await store.checkpoint('webhook:w2')).toBe(9_007_199_254_740_993n);
    });

    it('numbers attempts from 1 per event and target, and lists a target newest first', async () => {
      const first = attempt('w1', 'e1');
      await store.commit([{ consumer: 'webhook:w1', attempts: [first, attempt('w2', 'e1')] }]);
      await store.commit([{ consumer: 'webhook:w1', position: 7n, attempts: [attempt('w1', 'e1', { statusCode: 204, error: null }), attempt('w1', 'e2', { statusCode: null, error: 'timeout' })] }]);
      const listed = await store.attempts('webhook', 'w1', 10);
      expect(listed.map((a) => [a.eventId, a.attempt, a.statusCode, a.error])).toEqual([
        ['e2', 1, null, 'timeout'],
        ['e1', 2, 204, null],
        ['e1', 1, 500, 'unsuccessful_status'],
      ]);
      expect(await store.attempts('webhook', 'w1', 1)).toHaveLength(1);
      expect(await store.findAttempt('webhook', 'w1', first.id)).toEqual({ ...first, attempt: 1 });
      expect(await store.findAttempt('webhook', 'w2', first.id)).toBeUndefined();
      expect(await store.checkpoint('webhook:w1')).toBe(7n);
    });

    it('answers how often a message was tried on a target and when first, across commits (a restart counts its window from there)', async () => {
      const early = attempt('w1', 'e1', { attemptedAt: '2026-11-22T09:00:00.000Z' });
      await store.commit([{ consumer: 'webhook:w1', attempts: [attempt('w1', 'e1', { attemptedAt: '2026-11-22T09:30:00.000Z' }), early, attempt('w2', 'e1')] }]);
      // Another message of the same event to the same target (a notification to another responder) counts apart.
      const otherMessage = attempt('w1', 'e1', { messageId: 'msg_other', attemptedAt: '2026-11-22T08:00:00.000Z' });
      await store.commit([{ consumer: 'webhook:w1', attempts: [attempt('w1', 'e1', { attemptedAt: '2026-11-22T10:00:00.000Z' }), otherMessage] }]);
      expect(await store.history(early)).toEqual({ attempts: 3, firstAttemptedAt: '2026-11-22T09:00:00.000Z' });
      expect(await store.history(otherMessage)).toEqual({ attempts: 1, firstAttemptedAt: '2026-11-22T08:00:00.000Z' });
      expect(await store.history({ ...early, targetId: 'w2' })).toBeUndefined();
      expect(await store.history({ ...early, position: 2n })).toBeUndefined();
    });

    it('keeps an attempt committed twice (a commit put back after it failed) once, and the commit still goes through', async () => {
      const once = attempt('w1', 'e1');
      await store.commit([{ consumer: 'webhook:w1', attempts: [once] }]);
      await store.commit([{ consumer: 'webhook:w1', position: 9n, attempts: [once, attempt('w1', 'e2')] }]);
      expect((await store.attempts('webhook', 'w1', 10)).map((a) => a.eventId)).toEqual(['e2', 'e1']);
      expect(await store.checkpoint('webhook:w1')).toBe(9n);
    });

    it('prunes the oldest attempts of a channel before a bound, a limited number at a time; later attempts of an event keep counting on', async () => {
      const [old1, old2, other, mail, kept] = [attempt('w1', 'e1'), attempt('w1', 'e1'), attempt('w1', 'e2'), attempt('m1', 'e1', { channel: 'notification' }), attempt('w1', 'e1')];
      await store.commit([{ consumer: 'webhook:w1', attempts: [old1, old2, other, kept] }, { consumer: 'notification:m1', attempts: [mail] }]);
      const bound = kept.id;
      expect(await store.pruneAttempts('webhook', bound, 2)).toBe(2);
      expect(await store.pruneAttempts('webhook', bound, 2)).toBe(1);
      expect(await store.pruneAttempts('webhook', bound, 2)).toBe(0);
      expect((await store.attempts('webhook', 'w1', 10)).map((a) => [a.id, a.attempt])).toEqual([[kept.id, 3]]);
      expect(await store.findAttempt('notification', 'm1', mail.id)).toEqual({ ...mail, attempt: 1 });
      expect(await store.history(kept)).toEqual({ attempts: 1, firstAttemptedAt: kept.attemptedAt });
      const next = attempt('w1', 'e1');
      await store.commit([{ consumer: 'webhook:w1', attempts: [next] }]);
      expect((await store.findAttempt('webhook', 'w1', next.id))?.attempt).toBe(4);
    });

    it('holds re-send requests until they are carried out, oldest first, once each', async () => {
      const request = (id: string, second: number) => ({ id, channel: 'webhook', targetId: 'w1', attemptId: 'a1', requestedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() });
      await store.requestResend(request('r2', 2));
      await store.requestResend(request('r1', 1));
      await store.requestResend(request('r1', 1));
      expect((await store.pendingResends('webhook')).map((r) => r.id)).toEqual(['r1', 'r2']);
      expect(await store.pendingResends('email')).toEqual([]);
      await store.completeResend('r1');
      expect(await store.pendingResends('webhook')).toEqual([request('r2', 2)]);
    });
  });
}
