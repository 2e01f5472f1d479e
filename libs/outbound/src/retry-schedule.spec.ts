import { RetrySchedule } from './retry-schedule';

describe('RetrySchedule', () => {
  const hours = (h: number) => h * 3_600_000;

  it('waits 5 s, then doubles: 10 s, 20 s, 40 s (no jitter at the midpoint)', () => {
    const schedule = new RetrySchedule({ initialMs: 5000, windowMs: hours(24) }, () => 0.5);
    expect([1, 2, 3, 4].map((n) => schedule.nextDelayMs(n, 0, 0))).toEqual([5000, 10_000, 20_000, 40_000]);
  });

  it('varies each pause by at most ±20 %', () => {
    expect(new RetrySchedule({ initialMs: 5000, windowMs: hours(24) }, () => 0).nextDelayMs(2, 0, 0)).toBe(8000);
    expect(new RetrySchedule({ initialMs: 5000, windowMs: hours(24) }, () => 0.999_999).nextDelayMs(2, 0, 0)).toBe(12_000);
    const random = new RetrySchedule({ initialMs: 5000, windowMs: hours(24) });
    for (let i = 0; i < 200; i += 1) {
      const delay = random.nextDelayMs(1, 0, 0)!;
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(6000);
    }
  });

  it('caps a single pause, and gives up once the next try would fall beyond the window (24 h)', () => {
    const schedule = new RetrySchedule({ initialMs: 5000, windowMs: hours(24) }, () => 0.5);
    expect(schedule.nextDelayMs(30, 0, 0)).toBe(hours(6));
    expect(schedule.nextDelayMs(3, 0, hours(24) - 30_000)).toBe(20_000);
    expect(schedule.nextDelayMs(3, 0, hours(24) - 10_000)).toBeUndefined();
  });
});
