import type { AppConfig } from '@im/config';
import type { EventStore } from '@im/event-store';
import type { ProjectionProgress } from '@im/read-models';
import type { Clock } from '@im/write-path';
import type { DueWork } from './due-work';
import type { EscalationsDue } from './escalations-due';
import { FIRED_TOGETHER, TimerRunner } from './timer-runner';

/** A pass over `count` due items whose appends all wait on one gate: how many were in flight at once, and whether all fired. */
async function passOver(count: number, failing = new Set<number>()) {
  let inFlight = 0;
  let most = 0;
  const fired: number[] = [];
  const work: DueWork[] = Array.from({ length: count }, (_, n) => ({
    key: `escalation:INC-${n}`,
    fire: async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      if (failing.has(n)) throw new Error('the store is busy');
      fired.push(n);
    },
  }));
  const source = { name: 'escalations', due: async () => work } as unknown as EscalationsDue;
  const runner = new TimerRunner({} as AppConfig, {} as EventStore, {} as ProjectionProgress, { now: () => new Date() } as Clock, source);
  await runner.pass();
  return { most, fired };
}

describe('TimerRunner.pass', () => {
  it('fires due work together, so that their appends share a commit, a bounded number at a time', async () => {
    const { most, fired } = await passOver(100);
    expect(most).toBe(FIRED_TOGETHER);
    expect(fired.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, n) => n));
  });

  it('goes on past an item that fails (the next pass finds it again)', async () => {
    const { fired } = await passOver(40, new Set([3, 35]));
    expect(fired).toHaveLength(38);
  });
});
