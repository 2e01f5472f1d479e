import { setTimeout as sleep } from 'node:timers/promises';

/** Time as the write path sees it: injected, so tests decide what "now" is and skip the waits. */
export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms) => {
    await sleep(ms);
  },
};
