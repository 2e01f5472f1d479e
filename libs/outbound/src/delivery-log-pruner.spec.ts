import { SqliteReadStore } from '@im/read-models/sqlite';
import type { OutboundStore } from '@im/read-models';
import { AttemptIds } from './attempt-ids';
import { DeliveryLogPruner, PRUNE_BATCH } from './delivery-log-pruner';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);

const attempt = (id: string, channel: string, eventId: string) => ({
  id,
  channel,
  targetId: 't1',
  eventId,
  position: 1n,
  messageId: `msg_${eventId}`,
  attemptedAt: new Date(NOW).toISOString(),
  statusCode: 500,
  error: 'unsuccessful_status',
  durationMs: 3,
});

describe('DeliveryLogPruner', () => {
  let readStore: SqliteReadStore;
  let store: OutboundStore;
  const ids = new AttemptIds();
  beforeEach(() => {
    readStore = new SqliteReadStore(':memory:');
    store = readStore.outbound;
  });
  afterEach(() => readStore.close());

  it('removes the attempts made before the days the log keeps, in batches, and keeps the rest and the other channels', async () => {
    const old = Array.from({ length: PRUNE_BATCH + 5 }, (_, i) => attempt(ids.next(NOW - 91 * DAY_MS + i), 'webhook', `old${i}`));
    const recent = attempt(ids.next(NOW - 89 * DAY_MS), 'webhook', 'recent');
    const otherChannel = attempt(ids.next(NOW - 95 * DAY_MS), 'notification', 'mail');
    await store.commit([{ consumer: 'webhook:t1', attempts: [...old, recent] }, { consumer: 'notification:t1', attempts: [otherChannel] }]);
    const errors: unknown[] = [];
    const pruner = new DeliveryLogPruner(store, 'webhook', 90, () => NOW, (error) => errors.push(error));

    expect(await pruner.prune()).toBe(PRUNE_BATCH + 5);
    expect((await store.attempts('webhook', 't1', 10)).map((a) => a.eventId)).toEqual(['recent']);
    expect(await store.attempts('notification', 't1', 10)).toHaveLength(1);
    expect(await pruner.prune()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('prunes when it starts, reports a failed pass and stops when asked', async () => {
    const calls: string[] = [];
    const failing = {
      pruneAttempts: async (channel: string, before: string) => {
        calls.push(`${channel} ${before}`);
        throw new Error('disk I/O error');
      },
    } as unknown as OutboundStore;
    const errors: unknown[] = [];
    const pruner = new DeliveryLogPruner(failing, 'webhook', 30, () => NOW, (error) => errors.push(error));
    pruner.start();
    await pruner.stop();
    expect(calls).toEqual([`webhook ${(NOW - 30 * DAY_MS).toString(16).padStart(12, '0')}`]);
    expect(errors.map(String)).toEqual(['Error: disk I/O error']);
  });
});
