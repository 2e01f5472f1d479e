import fc from 'fast-check';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../domain-errors';
import type { HeartbeatData, OverrideData, PolicyData, ScheduleData, ServiceData } from './oncall-config';
import { decideOncall, evolveOncall, initialOncallState, type OncallCommand, type OncallState } from './oncall.decider';

const service = (over: Partial<ServiceData> = {}): ServiceData => ({ id: 'svc-1', name: 'Checkout', description: null, escalation_policy_id: null, ...over });
const policy = (over: Partial<PolicyData> = {}): PolicyData => ({
  id: 'pol-1',
  name: 'Checkout primary',
  steps: [{ delay_seconds: 300, targets: [{ type: 'user', id: 'ann' }] }],
  repeat: 0,
  ...over,
});
const schedule = (over: Partial<ScheduleData> = {}): ScheduleData => ({
  id: 'sch-1',
  name: 'Primary',
  time_zone: 'Europe/Berlin',
  layers: [{ name: 'daily', start: '2026-03-27T08:00:00.000Z', rotation: { every: 1, unit: 'days' }, users: ['ann', 'bob'] }],
  ...over,
});
const override = (over: Partial<OverrideData> = {}): OverrideData => ({
  schedule_id: 'sch-1',
  id: 'ovr-1',
  user: 'cy',
  start: '2026-04-01T08:00:00.000Z',
  end: '2026-04-01T20:00:00.000Z',
  ...over,
});
const heartbeat = (over: Partial<HeartbeatData> = {}): HeartbeatData => ({ id: 'hb-1', name: 'Watchdog', interval_seconds: 120, service_id: 'svc-1', ...over });
const ADMIN = { sub: 'ops', admin: true };

const from = (start: OncallState, ...commands: OncallCommand[]): OncallState =>
  commands.reduce((state, command) => decideOncall(command, state).reduce(evolveOncall, state), start);
const after = (...commands: OncallCommand[]): OncallState => from(initialOncallState, ...commands);
const decide = (command: OncallCommand, state: OncallState = initialOncallState) => decideOncall(command, state);
const refusal = (command: OncallCommand, state: OncallState = initialOncallState): unknown => {
  try {
    decideOncall(command, state);
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

describe('services', () => {
  it('creates a service with its name trimmed, updates and deletes it', () => {
    expect(decide({ kind: 'create_service', service: service({ name: ' Checkout ' }) })).toEqual([{ type: 'im.oncall.service_created', data: service() }]);
    const created = after({ kind: 'create_service', service: service() });
    expect(decide({ kind: 'update_service', service: service({ description: 'Pays' }) }, created)).toEqual([
      { type: 'im.oncall.service_updated', data: service({ description: 'Pays' }) },
    ]);
    expect(decide({ kind: 'delete_service', id: 'svc-1', openIncidents: 0 }, created)).toEqual([{ type: 'im.oncall.service_deleted', data: { id: 'svc-1' } }]);
  });

  it('keeps names unique whatever their case (409), but a service may keep its own name', () => {
    const created = after({ kind: 'create_service', service: service() });
    expect(refusal({ kind: 'create_service', service: service({ id: 'svc-2', name: 'checkout' }) }, created)).toEqual(
      new ConflictError('A service named Checkout exists already (svc-1)'),
    );
    expect(decide({ kind: 'update_service', service: service({ name: 'CHECKOUT' }) }, created)).toHaveLength(1);
    // Once deleted, the name is free again.
    const deleted = after({ kind: 'create_service', service: service() }, { kind: 'delete_service', id: 'svc-1', openIncidents: 0 });
    expect(decide({ kind: 'create_service', service: service({ id: 'svc-2' }) }, deleted)).toHaveLength(1);
  });

  it('needs the escalation policy it names to exist (400)', () => {
    expect(refusal({ kind: 'create_service', service: service({ escalation_policy_id: 'pol-9' }) })).toEqual(
      new InvalidError('escalation_policy_id: escalation policy pol-9 not found'),
    );
    const withPolicy = after({ kind: 'create_policy', policy: policy() });
    expect(decide({ kind: 'create_service', service: service({ escalation_policy_id: 'pol-1' }) }, withPolicy)).toHaveLength(1);
  });

  it('refuses to delete a service while an unresolved incident belongs to it (409)', () => {
    const created = after({ kind: 'create_service', service: service() });
    expect(refusal({ kind: 'delete_service', id: 'svc-1', openIncidents: 2 }, created)).toBeInstanceOf(ConflictError);
  });

  it.each([
    [{ name: '' }, 'name must be a non-empty text of at most 100 characters'],
    [{ name: 'x'.repeat(101) }, 'name must be a non-empty text of at most 100 characters'],
    [{ description: 'x'.repeat(1001) }, 'description must be a text of at most 1000 characters'],
  ])('refuses %j: %s', (over, message) => {
    expect(refusal({ kind: 'create_service', service: service(over) })).toEqual(new InvalidError(message));
  });

  it('answers not found for an unknown service, and for one deleted', () => {
    expect(refusal({ kind: 'update_service', service: service() })).toEqual(new NotFoundError('Service svc-1 not found'));
    const deleted = after({ kind: 'create_service', service: service() }, { kind: 'delete_service', id: 'svc-1', openIncidents: 0 });
    expect(refusal({ kind: 'delete_service', id: 'svc-1', openIncidents: 0 }, deleted)).toEqual(new NotFoundError('Service svc-1 not found'));
  });
});

describe('escalation policies', () => {
  it('creates, updates and deletes a policy', () => {
    expect(decide({ kind: 'create_policy', policy: policy({ name: ' Primary ' }) })).toEqual([{ type: 'im.oncall.policy_created', data: policy({ name: 'Primary' }) }]);
    const created = after({ kind: 'create_policy', policy: policy() });
    expect(decide({ kind: 'update_policy', policy: policy({ repeat: 2 }) }, created)[0].type).toBe('im.oncall.policy_updated');
    expect(decide({ kind: 'delete_policy', id: 'pol-1' }, created)).toEqual([{ type: 'im.oncall.policy_deleted', data: { id: 'pol-1' } }]);
  });

  it('needs every schedule target to exist (400, naming the target)', () => {
    const steps = [
      { delay_seconds: 60, targets: [{ type: 'user' as const, id: 'ann' }, { type: 'schedule' as const, id: 'sch-1' }] },
      { delay_seconds: 60, targets: [{ type: 'schedule' as const, id: 'sch-9' }] },
    ];
    expect(refusal({ kind: 'create_policy', policy: policy({ steps }) }, after({ kind: 'create_schedule', schedule: schedule() }))).toEqual(
      new InvalidError('steps[1].targets[0].id: schedule sch-9 not found'),
    );
  });

  it.each([
    [{ steps: [] }, 'steps must list at least one step'],
    [{ steps: [{ delay_seconds: 60, targets: [] }] }, 'steps[0].targets must list at least one target'],
    [{ steps: [{ delay_seconds: 60, targets: [{ type: 'team', id: 'x' }] }] }, 'steps[0].targets[0].type must be one of user, schedule'],
    [{ steps: [{ delay_seconds: 0, targets: [{ type: 'user', id: 'ann' }] }] }, 'steps[0].delay_seconds must be an integer from 1 to 86400'],
    [{ repeat: 10 }, 'repeat must be an integer from 0 to 9'],
  ])('refuses %j: %s', (over, message) => {
    expect(refusal({ kind: 'create_policy', policy: policy(over as Partial<PolicyData>) })).toEqual(new InvalidError(message));
  });

  it('refuses to delete a policy a service names (409)', () => {
    const named = after({ kind: 'create_policy', policy: policy() }, { kind: 'create_service', service: service({ escalation_policy_id: 'pol-1' }) });
    expect(refusal({ kind: 'delete_policy', id: 'pol-1' }, named)).toEqual(new ConflictError('Escalation policy pol-1 is the policy of service Checkout (svc-1)'));
    // Once the service names none, it goes.
    const freed = from(named, { kind: 'update_service', service: service() });
    expect(decide({ kind: 'delete_policy', id: 'pol-1' }, freed)).toHaveLength(1);
  });
});

describe('escalation policies: ranges, as properties', () => {
  const accepted = (delay: number, repeat: number) => {
    try {
      decideOncall({ kind: 'create_policy', policy: policy({ steps: [{ delay_seconds: delay, targets: [{ type: 'user', id: 'ann' }] }], repeat }) }, initialOncallState);
      return true;
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidError);
      return false;
    }
  };

  it('accepts exactly the integer delays 1..86400 and repeats 0..9', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -10, max: 90_000 }), fc.double({ min: -10, max: 90_000, noNaN: true })), fc.integer({ min: -3, max: 12 }), (delay, repeat) => {
        expect(accepted(delay, repeat)).toBe(Number.isInteger(delay) && delay >= 1 && delay <= 86_400 && repeat >= 0 && repeat <= 9);
      }),
    );
  });
});

describe('schedules', () => {
  it('creates a schedule under its zone\'s canonical name, updates it keeping its overrides, deletes it', () => {
    expect(decide({ kind: 'create_schedule', schedule: schedule({ time_zone: 'europe/berlin' }) })).toEqual([{ type: 'im.oncall.schedule_created', data: schedule() }]);
    const withOverride = after({ kind: 'create_schedule', schedule: schedule() }, { kind: 'create_override', override: override(), by: ADMIN });
    const updated = from(withOverride, { kind: 'update_schedule', schedule: schedule({ name: 'Renamed' }) });
    expect([...(updated.schedules.get('sch-1')?.keys() ?? [])]).toEqual(['ovr-1']);
    expect(decide({ kind: 'delete_schedule', id: 'sch-1' }, updated)).toEqual([{ type: 'im.oncall.schedule_deleted', data: { id: 'sch-1' } }]);
  });

  it.each(['Mars/Olympus', '+01:00', 'CEST', ''])('refuses the time zone %j, naming time_zone', (zone) => {
    expect(refusal({ kind: 'create_schedule', schedule: schedule({ time_zone: zone }) })).toEqual(new InvalidError('time_zone must be an IANA time zone name, e.g. Europe/Berlin'));
  });

  const layer = schedule().layers[0];
  it.each([
    [{ rotation: { every: 0, unit: 'days' } }, 'layers[0].rotation.every must be an integer from 1 to 365'],
    [{ rotation: { every: 366, unit: 'days' } }, 'layers[0].rotation.every must be an integer from 1 to 365'],
    [{ rotation: { every: 1, unit: 'months' } }, 'layers[0].rotation.unit must be one of hours, days, weeks'],
    [{ users: [] }, 'layers[0].users must list at least one user (their sub)'],
    [{ start: 'yesterday' }, 'layers[0].start must be an RFC 3339 time'],
    [{ restrictions: [{ days: ['monday'], from: '09:00', to: '17:00' }] }, 'layers[0].restrictions[0].days must list days among mon, tue, wed, thu, fri, sat, sun'],
    [{ restrictions: [{ days: [], from: '09:00', to: '17:00' }] }, 'layers[0].restrictions[0].days must list days among mon, tue, wed, thu, fri, sat, sun'],
    [{ restrictions: [{ days: ['mon'], from: '24:00', to: '9:00' }] }, 'layers[0].restrictions[0].from must be a local time HH:MM (00:00 to 23:59); layers[0].restrictions[0].to must be a local time HH:MM (00:00 to 23:59)'],
  ])('refuses a layer with %j: %s', (over, message) => {
    expect(refusal({ kind: 'create_schedule', schedule: schedule({ layers: [{ ...layer, ...over } as ScheduleData['layers'][0]] }) })).toEqual(new InvalidError(message));
  });

  it('accepts exactly the rotations of 1..365 hours, days or weeks, and exactly the HH:MM times 00:00..23:59', () => {
    const accepted = (s: ScheduleData) => {
      try {
        decideOncall({ kind: 'create_schedule', schedule: s }, initialOncallState);
        return true;
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidError);
        return false;
      }
    };
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 400 }), fc.constantFrom('hours', 'days', 'weeks', 'months'), (every, unit) => {
        const s = schedule({ layers: [{ ...layer, rotation: { every, unit: unit as 'days' } }] });
        expect(accepted(s)).toBe(every >= 1 && every <= 365 && unit !== 'months');
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 70 }), (h, m) => {
        const time = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
        const s = schedule({ layers: [{ ...layer, restrictions: [{ days: ['mon'], from: time, to: '08:00' }] }] });
        expect(accepted(s)).toBe(h <= 23 && m <= 59);
      }),
    );
  });

  it('refuses to delete a schedule a policy names (409), and answers 404 for an unknown one', () => {
    const named = after(
      { kind: 'create_schedule', schedule: schedule() },
      { kind: 'create_policy', policy: policy({ steps: [{ delay_seconds: 60, targets: [{ type: 'schedule', id: 'sch-1' }] }] }) },
    );
    expect(refusal({ kind: 'delete_schedule', id: 'sch-1' }, named)).toEqual(new ConflictError('Schedule sch-1 is a target of escalation policy Checkout primary (pol-1)'));
    expect(refusal({ kind: 'delete_schedule', id: 'sch-9' }, named)).toEqual(new NotFoundError('Schedule sch-9 not found'));
    expect(refusal({ kind: 'update_schedule', schedule: schedule({ id: 'sch-9' }) }, named)).toEqual(new NotFoundError('Schedule sch-9 not found'));
  });
});

describe('overrides', () => {
  const withSchedule = after({ kind: 'create_schedule', schedule: schedule() });

  it('lets an oncall.admin take a shift for anyone, and anyone take a shift themself', () => {
    expect(decide({ kind: 'create_override', override: override(), by: ADMIN }, withSchedule)).toEqual([{ type: 'im.oncall.override_created', data: override() }]);
    expect(decide({ kind: 'create_override', override: override(), by: { sub: 'cy', admin: false } }, withSchedule)).toHaveLength(1);
  });

  it('refuses an override for another user without oncall.admin (403), and to an anonymous caller', () => {
    expect(refusal({ kind: 'create_override', override: override(), by: { sub: 'bob', admin: false } }, withSchedule)).toBeInstanceOf(ForbiddenError);
    expect(refusal({ kind: 'create_override', override: override(), by: { sub: undefined, admin: false } }, withSchedule)).toBeInstanceOf(ForbiddenError);
  });

  it('needs its end after its start (400) and an existing schedule (404)', () => {
    expect(refusal({ kind: 'create_override', override: override({ end: override().start }), by: ADMIN }, withSchedule)).toEqual(new InvalidError('end must be after start'));
    expect(refusal({ kind: 'create_override', override: override({ schedule_id: 'sch-9' }), by: ADMIN }, withSchedule)).toEqual(new NotFoundError('Schedule sch-9 not found'));
  });

  it('deletes an override by an admin or its own user only; an unknown one is 404', () => {
    const taken = after({ kind: 'create_schedule', schedule: schedule() }, { kind: 'create_override', override: override(), by: ADMIN });
    expect(decide({ kind: 'delete_override', scheduleId: 'sch-1', id: 'ovr-1', by: { sub: 'cy', admin: false } }, taken)).toEqual([
      { type: 'im.oncall.override_deleted', data: { schedule_id: 'sch-1', id: 'ovr-1' } },
    ]);
    expect(refusal({ kind: 'delete_override', scheduleId: 'sch-1', id: 'ovr-1', by: { sub: 'bob', admin: false } }, taken)).toBeInstanceOf(ForbiddenError);
    expect(refusal({ kind: 'delete_override', scheduleId: 'sch-1', id: 'ovr-9', by: ADMIN }, taken)).toEqual(new NotFoundError('Override ovr-9 of schedule sch-1 not found'));
    const gone = from(taken, { kind: 'delete_override', scheduleId: 'sch-1', id: 'ovr-1', by: ADMIN });
    expect(refusal({ kind: 'delete_override', scheduleId: 'sch-1', id: 'ovr-1', by: ADMIN }, gone)).toBeInstanceOf(NotFoundError);
  });

  it('accepts exactly the overrides whose end is after their start', () => {
    const base = Date.parse('2026-04-01T00:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: -86_400_000, max: 86_400_000 }), (length) => {
        const o = override({ start: new Date(base).toISOString(), end: new Date(base + length).toISOString() });
        const ok = (() => {
          try {
            decideOncall({ kind: 'create_override', override: o, by: ADMIN }, withSchedule);
            return true;
          } catch (error) {
            expect(error).toEqual(new InvalidError('end must be after start'));
            return false;
          }
        })();
        expect(ok).toBe(length > 0);
      }),
    );
  });
});

describe('heartbeats', () => {
  const withService = () => after({ kind: 'create_service', service: service() });

  it('creates a heartbeat of an existing service with its name trimmed, and deletes it', () => {
    const state = withService();
    expect(decide({ kind: 'create_heartbeat', heartbeat: heartbeat({ name: ' Watchdog ' }) }, state)).toEqual([{ type: 'im.oncall.heartbeat_created', data: heartbeat() }]);
    const created = from(state, { kind: 'create_heartbeat', heartbeat: heartbeat() });
    expect(decide({ kind: 'delete_heartbeat', id: 'hb-1' }, created)).toEqual([{ type: 'im.oncall.heartbeat_deleted', data: { id: 'hb-1' } }]);
    expect(refusal({ kind: 'delete_heartbeat', id: 'hb-1' }, from(created, { kind: 'delete_heartbeat', id: 'hb-1' }))).toEqual(new NotFoundError('Heartbeat hb-1 not found'));
  });

  it('needs its service to exist, a name and an interval of 10..86400 seconds (400)', () => {
    expect(refusal({ kind: 'create_heartbeat', heartbeat: heartbeat() })).toEqual(new InvalidError('service_id: service svc-1 not found'));
    expect(refusal({ kind: 'create_heartbeat', heartbeat: heartbeat({ name: ' ', interval_seconds: 9.5 }) }, withService())).toEqual(
      new InvalidError('name must be a non-empty text of at most 100 characters; interval_seconds must be an integer from 10 to 86400'),
    );
  });

  it('accepts exactly the integer intervals 10..86400', () => {
    const state = withService();
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -100, max: 100_000 }), fc.double({ noNaN: true })), (seconds) => {
        const valid = Number.isInteger(seconds) && seconds >= 10 && seconds <= 86_400;
        const outcome = (() => {
          try {
            return decide({ kind: 'create_heartbeat', heartbeat: heartbeat({ interval_seconds: seconds }) }, state).length === 1;
          } catch (error) {
            return error instanceof InvalidError ? false : error;
          }
        })();
        expect(outcome).toBe(valid);
      }),
    );
  });

  it('refuses to delete a service a heartbeat names (409), as for an incident of it', () => {
    const state = from(withService(), { kind: 'create_heartbeat', heartbeat: heartbeat() });
    expect(refusal({ kind: 'delete_service', id: 'svc-1', openIncidents: 0 }, state)).toEqual(new ConflictError('Service svc-1 is the service of heartbeat Watchdog (hb-1)'));
    expect(decide({ kind: 'delete_service', id: 'svc-1', openIncidents: 0 }, from(state, { kind: 'delete_heartbeat', id: 'hb-1' }))).toHaveLength(1);
  });
});
