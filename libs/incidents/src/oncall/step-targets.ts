import type { PagedUser } from '../incident-events';
import type { StepTargets } from './escalation';
import type { PolicyStep } from './oncall-config';
import { type CompiledSchedule, onCallAt } from './schedule';

/**
 * Each step's targets at instant `at` (ms), as the incident decider's paging
 * commands carry them (`targets[i]` for step i + 1): a user target pages that
 * user; a schedule target pages whoever is on call in it then, or lists the
 * schedule as unstaffed (no one on call, or a schedule that is gone). A user
 * named twice is paged once, by pageData.
 */
export function stepTargetsAt(steps: readonly Pick<PolicyStep, 'targets'>[], schedules: ReadonlyMap<string, CompiledSchedule>, at: number): StepTargets[] {
  return steps.map(({ targets }) => {
    const paged: PagedUser[] = [];
    const unstaffed: string[] = [];
    for (const target of targets) {
      if (target.type === 'user') {
        paged.push({ user: target.id, via: 'user' });
        continue;
      }
      const schedule = schedules.get(target.id);
      const user = schedule ? onCallAt(schedule, at) : null;
      if (user === null) unstaffed.push(target.id);
      else paged.push({ user, via: `schedule:${target.id}` });
    }
    return { paged, unstaffed };
  });
}
