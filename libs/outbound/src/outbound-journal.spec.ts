import type { OutboundProgress, OutboundStore } from '@im/read-models';
import { OutboundJournal } from './outbound-journal';

/** A store whose commits fail while they hold the poisoned consumer's progress (as a row the database refuses would). */
function storeRefusing(poisoned: string) {
  const committed: OutboundProgress[] = [];
  const store = {
    commit: async (progress: OutboundProgress[]) => {
      if (progress.some((p) => p.consumer === poisoned)) throw new Error('constraint failed');
      committed.push(...progress);
    },
    history: async () => undefined,
  } as unknown as OutboundStore;
  return { store, committed };
}

const attempt = (targetId: string) => ({
  id: `a_${targetId}`,
  channel: 'webhook',
  targetId,
  eventId: 'e1',
  position: 3n,
  messageId: `msg_${targetId}`,
  attemptedAt: '2026-11-22T10:00:00.000Z',
  statusCode: 204,
  error: null,
  durationMs: 1,
});

describe('OutboundJournal', () => {
  it('commits every other consumer when one consumer\'s part cannot be committed, and keeps that part to try again', async () => {
    const { store, committed } = storeRefusing('webhook:bad');
    const errors: unknown[] = [];
    const journal = new OutboundJournal(store, (error) => errors.push(error));
    journal.record('webhook:bad', attempt('bad'));
    journal.record('webhook:good', attempt('good'));
    journal.advance('webhook:good', 3n);
    await journal.flush();
    expect(committed.map((p) => p.consumer)).toEqual(['webhook:good']);
    expect(errors).toHaveLength(1);

    journal.record('webhook:other', attempt('other'));
    await journal.flush();
    expect(committed.map((p) => p.consumer)).toEqual(['webhook:good', 'webhook:other']);
    // Still pending, the poisoned part alone: its attempt counts, and it is tried again at the next flush.
    expect(await journal.history('webhook:bad', attempt('bad'))).toEqual({ attempts: 1, firstAttemptedAt: '2026-11-22T10:00:00.000Z' });
  });
});
