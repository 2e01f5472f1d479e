import { onCallAt } from '@im/incidents';
import { CompiledSchedules } from './compiled-schedules';
import type { ConfigDocuments } from './oncall-queries.port';
import type { ScheduleRecord } from './oncall.projections';

const schedule = (users: string[]): ScheduleRecord => ({
  id: 'sc1',
  name: 'Primary',
  timeZone: 'Europe/Berlin',
  createdAt: '2026-11-22T10:00:00.000Z',
  layers: [{ name: 'daily', start: '2026-11-01T08:00:00.000Z', rotation: { every: 1, unit: 'days' }, users }],
  overrides: [],
});

/** A read model of one schedule whose reads are counted. */
function documents() {
  const state = { doc: schedule(['ann']) as ScheduleRecord | undefined, position: 1n, reads: 0 };
  const docs: ConfigDocuments<ScheduleRecord> = {
    findById: async (id) => {
      state.reads += 1;
      return id === 'sc1' ? state.doc : undefined;
    },
    list: async () => (state.doc ? [state.doc] : []),
    positionOf: async (id) => (id === 'sc1' && state.doc ? state.position : undefined),
  };
  return { state, docs };
}

const NOON = Date.parse('2026-12-02T12:00:00Z');

describe('CompiledSchedules', () => {
  it('reads and compiles a schedule once per version, and again as soon as it changed', async () => {
    const { state, docs } = documents();
    const schedules = new CompiledSchedules(docs);
    expect(onCallAt((await schedules.get('sc1'))!.compiled, NOON)).toBe('ann');
    await schedules.get('sc1');
    expect(state.reads).toBe(1);
    state.doc = schedule(['bob']);
    state.position = 2n;
    expect(onCallAt((await schedules.get('sc1'))!.compiled, NOON)).toBe('bob');
    expect(state.reads).toBe(2);
  });

  it('answers undefined for a schedule that does not exist or was deleted', async () => {
    const { state, docs } = documents();
    const schedules = new CompiledSchedules(docs);
    expect(await schedules.get('sc9')).toBeUndefined();
    await schedules.get('sc1');
    state.doc = undefined;
    expect(await schedules.get('sc1')).toBeUndefined();
  });
});
