import type { RecordedEvent } from '@im/event-store';
import type { LedgerTail } from './ledger-tail';
import type { OutboundTarget } from './outbound-channel';
import type { OutboundJournal } from './outbound-journal';
import { OutboundWorker, type WorkerContext } from './outbound-worker';
import type { RetrySchedule } from './retry-schedule';

/** A ledger that hands out `batches` one-event batches as fast as they are read, then stays quiet. */
function quickLedger(batches: number) {
  const tail = {
    read: async (after: bigint) => (after < BigInt(batches) ? [{ position: after + 1n } as RecordedEvent] : []),
    waitBeyond: (_after: bigint, signal: AbortSignal, timeoutMs?: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs ?? 60_000);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      }),
  };
  return tail as unknown as LedgerTail;
}

describe('OutboundWorker', () => {
  it('asks a channel for messages it put off once per poll, not once per ledger batch, and again while the ledger is quiet', async () => {
    let dueAsked = 0;
    const advanced: bigint[] = [];
    const context: WorkerContext<OutboundTarget, never> = {
      channel: {
        name: 'test',
        prepare: async () => [],
        send: async () => ({ statusCode: 200, error: null }),
        retire: async () => undefined,
        due: async () => (dueAsked++, []),
      },
      tail: quickLedger(300),
      journal: { advance: (_consumer: string, position: bigint) => advanced.push(position), record: () => undefined } as unknown as OutboundJournal,
      schedule: {} as RetrySchedule,
      attemptId: () => 'a',
      now: () => Date.now(),
      onError: (_target, error) => {
        throw error;
      },
    };
    const worker = new OutboundWorker(context, { id: 't', startAfter: 0n }, 0n);
    worker.start();
    try {
      for (let waited = 0; advanced[advanced.length - 1] !== 300n && waited < 100; waited++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(advanced[advanced.length - 1]).toBe(300n);
      expect(dueAsked).toBe(1);
      // Quiet ledger: the poll still comes round.
      await new Promise((resolve) => setTimeout(resolve, 2300));
      expect(dueAsked).toBeGreaterThanOrEqual(2);
      expect(dueAsked).toBeLessThanOrEqual(4);
    } finally {
      await worker.stop();
    }
  });
});
