import type { EventLoopUtilization } from 'node:perf_hooks';
import { FlushTick } from './flush-tick';

/** A clock that moves only when told: each write below "takes" `stepMs`. */
function fakeClock() {
  // Not 0: the first tick comes at once, as after a quiet spell.
  let time = 10_000;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

/** An event loop that was busy `busy` of the last second at each reading. */
const loopBusy =
  (busy: number) =>
  (since?: EventLoopUtilization): EventLoopUtilization =>
    since ? { idle: 1000 * (1 - busy), active: 1000 * busy, utilization: busy } : { idle: 0, active: 0, utilization: 0 };

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('FlushTick', () => {
  it('lets the event loop run between slices of a long flush, so requests do not wait behind every write', async () => {
    const clock = fakeClock();
    const tick = new FlushTick(clock.now, loopBusy(0));
    const order: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      tick.wait(() => {
        order.push(name);
        // Work that arrived meanwhile (an append's next step) is queued for the event loop.
        setImmediate(() => order.push(`io after ${name}`));
        clock.advance(5);
      });
    }
    for (let i = 0; i < 6; i++) await nextTurn();
    expect(order.slice(0, 5)).toEqual(['a', 'io after a', 'b', 'io after b', 'c']);
  });

  it('runs the writes registered during a flush at the next tick, not in this one', async () => {
    const clock = fakeClock();
    const tick = new FlushTick(clock.now, loopBusy(0));
    const order: string[] = [];
    tick.wait(() => {
      order.push('first');
      tick.wait(() => order.push('second'));
    });
    await nextTurn();
    expect(order).toEqual(['first']);
  });

  it('spaces the ticks out when the rest of the process keeps the event loop busy, and not when it is idle', async () => {
    const flushOnce = async (tick: FlushTick, clock: ReturnType<typeof fakeClock>) => {
      // 1,000 writes of 0.02 ms: a 20 ms flush.
      for (let i = 0; i < 1000; i++) tick.wait(() => clock.advance(0.02));
      // In slices of 2 ms, a turn each.
      for (let i = 0; i < 12; i++) await nextTurn();
    };
    const idleClock = fakeClock();
    const idle = new FlushTick(idleClock.now, loopBusy(0.25));
    await flushOnce(idle, idleClock);
    const busyClock = fakeClock();
    const busy = new FlushTick(busyClock.now, loopBusy(0.95));
    await flushOnce(busy, busyClock);
    // Idle: the flush may take half the loop, so the ticks stay at their shortest; busy: it gets far less, so fewer, larger writes.
    expect(idle.interval).toBeCloseTo(40);
    expect(busy.interval).toBeGreaterThan(200);
  });
});
