import type { RecordedEvent } from '@im/event-store';
import { webhookReader } from './webhook-channel';
import { ReaderViews, VIEW_TTL_MS } from './reader-views';

const event = (position: bigint) => ({ position, event: { id: `e${position}` } }) as unknown as RecordedEvent;

describe('ReaderViews', () => {
  const setup = () => {
    const asked: { sub: string; positions: bigint[] }[] = [];
    let failing = false;
    let now = 0;
    const views = new ReaderViews(
      async (reader, events) => {
        asked.push({ sub: reader.sub, positions: events.map((e) => e.position) });
        if (failing) throw new Error('PDP down');
        // Withholds odd positions from readers without pii, as a redacting policy would.
        return new Map(events.filter((e) => reader.dataAccess.includes('pii' as never) || e.position % 2n === 0n).map((e) => [e.position, { eventId: e.event.id, body: `${reader.sub}:${e.position}` }]));
      },
      () => now,
    );
    return { views, asked, fail: (on: boolean) => (failing = on), advance: (ms: number) => (now += ms) };
  };

  it('works each event out once for registrations that read alike, while they ask at the same time', async () => {
    const { views, asked } = setup();
    const events = [event(1n), event(2n)];
    const seen = await Promise.all([views.of(webhookReader('a', 'internal', ['pii']), events), views.of(webhookReader('b', 'internal', ['pii']), events)]);
    expect(asked).toEqual([{ sub: 'webhooks:internal:pii', positions: [1n, 2n] }]);
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0].map((view) => view?.eventId)).toEqual(['e1', 'e2']);
  });

  it('works events out apart for another clearance or data access, and answers each its own view', async () => {
    const { views, asked } = setup();
    const events = [event(1n), event(2n)];
    await views.of(webhookReader('a', 'internal', ['pii']), events);
    const other = await views.of(webhookReader('b', 'internal', []), events);
    expect(asked.map((a) => a.sub)).toEqual(['webhooks:internal:pii', 'webhooks:internal:']);
    expect(other.map((view) => view?.body)).toEqual([undefined, 'webhooks:internal::2']);
  });

  it('asks only for the events not worked out yet, and again once a view is older than its time', async () => {
    const { views, asked, advance } = setup();
    const reader = webhookReader('a', 'internal', []);
    await views.of(reader, [event(1n)]);
    await views.of(reader, [event(1n), event(2n)]);
    advance(VIEW_TTL_MS + 1);
    await views.of(reader, [event(2n)]);
    expect(asked.map((a) => a.positions)).toEqual([[1n], [2n], [2n]]);
  });

  it('forgets work that failed, so the retry asks again', async () => {
    const { views, asked, fail } = setup();
    const reader = webhookReader('a', 'internal', []);
    fail(true);
    await expect(views.of(reader, [event(2n)])).rejects.toThrow('PDP down');
    fail(false);
    expect((await views.of(reader, [event(2n)]))[0]?.eventId).toBe('e2');
    expect(asked).toHaveLength(2);
  });
});
