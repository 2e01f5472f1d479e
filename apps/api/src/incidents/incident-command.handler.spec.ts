import type { IncidentQueryService, IncidentVisibility, Principal } from '@im/access';
import type { IncidentCommand } from '@im/incidents';
import { type Clock, type CommandHandler, randomIds } from '@im/write-path';
import type { PagingPlans, ServiceAssignments } from '@im/paging';
import { IncidentCommandHandler } from './incident-command.handler';

describe('IncidentCommandHandler', () => {
  it('takes a command’s time when the write path decides it, on every attempt (not once, before it waits its turn)', async () => {
    let now = Date.parse('2026-12-01T10:00:00Z');
    const clock: Clock = { now: () => new Date(now), sleep: async () => undefined };
    const times: string[] = [];
    // A write path that decides the command twice, a second apart: after a queue or a conflict.
    const commands = {
      execute: async (_model: unknown, key: string, command: (key: string) => IncidentCommand) => {
        for (let attempt = 0; attempt < 2; attempt++, now += 1000) times.push((command(key) as { time: string }).time);
        return { appended: [] };
      },
    } as unknown as CommandHandler;
    const incidents = { get: async () => ({}) } as unknown as IncidentQueryService;
    const handler = new IncidentCommandHandler(commands, {} as IncidentVisibility, incidents, clock, randomIds, {} as ServiceAssignments, {} as PagingPlans);
    await handler.transition('INC-1', 'ack', { caller: { sub: 'ana' } as Principal });
    expect(times).toEqual(['2026-12-01T10:00:00.000Z', '2026-12-01T10:00:01.000Z']);
  });
});
