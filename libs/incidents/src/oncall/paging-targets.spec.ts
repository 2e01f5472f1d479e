import fc from 'fast-check';
import { ConflictError } from '../domain-errors';
import type { Incident } from '../incident';
import { decide, decideRecord, evolve } from '../incident.decider';
import type { LedgerEvent } from '../incident-events';
import { type EscalationPolicyShape, manualEscalationRefusal, NO_STEPS, pageData, pagingDue } from './escalation';
import type { PolicyTarget } from './oncall-config';
import { compileSchedule, onCallAt } from './schedule';
import { assignedService, type KnownService } from './service-assignment';
import { stepTargetsAt } from './step-targets';

const ID = 'INC-0000cafe';
const T0 = '2026-11-22T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const SERVICES: KnownService[] = [
  { id: 'svc-checkout', name: 'Checkout', escalationPolicyId: 'pol-1' },
  { id: 'svc-search', name: 'Search', escalationPolicyId: null },
];

describe('the service an incident belongs to', () => {
  it('is the integration key’s service first, whatever the event names', () => {
    expect(assignedService(SERVICES, { keyServiceId: 'svc-search', data: { service: 'Checkout' } })).toEqual({ service_id: 'svc-search', escalation_policy_id: null });
  });

  it('is data.service by id or by name whatever its case, when the key has no service or one that is gone', () => {
    expect(assignedService(SERVICES, { keyServiceId: null, data: { service: 'svc-checkout' } })).toEqual({ service_id: 'svc-checkout', escalation_policy_id: 'pol-1' });
    expect(assignedService(SERVICES, { keyServiceId: 'svc-deleted', data: { service: ' checkout ' } })?.service_id).toBe('svc-checkout');
  });

  it('is else the first of a declaration’s services naming one, and none when nothing names a service', () => {
    expect(assignedService(SERVICES, { data: { service: 'Billing', services: ['Billing', 'search', 'Checkout'] } })?.service_id).toBe('svc-search');
    expect(assignedService(SERVICES, { data: { services: ['Billing'], service: 42 } })).toBeUndefined();
    expect(assignedService([], { keyServiceId: 'svc-checkout', data: { service: 'Checkout' } })).toBeUndefined();
  });
});

describe('opening with a service', () => {
  const service = { service_id: 'svc-checkout', escalation_policy_id: 'pol-1' };

  it('records im.incident.service_assigned in the same decision as the declaration, before the commander', () => {
    const events = decide({ kind: 'declare', incidentId: ID, time: T0, title: 'Down', severity: 'SEV-1', commander: 'alice', service }, undefined);
    expect(events.map((event) => event.type)).toEqual(['im.incident.declare', 'im.incident.service_assigned', 'im.incident.role_assigned']);
    expect(events[1].data).toEqual(service);
    expect(events.reduce<Incident | undefined>(evolve, undefined)?.escalation).toMatchObject({ serviceId: 'svc-checkout', policyId: 'pol-1', step: 0 });
  });

  it('records it with an opening alert, and never with an event that joins an incident', () => {
    const alert: LedgerEvent = { type: 'im.alert.trigger', incidentId: ID, time: T0, data: { title: 'Down' }, fingerprint: 'fp' };
    const opening = decideRecord({ kind: 'record', incidentId: ID, event: alert, service }, undefined);
    expect(opening.map((event) => event.type)).toEqual(['im.alert.trigger', 'im.incident.service_assigned']);
    const state = opening.reduce<Incident | undefined>(evolve, undefined);
    expect(decideRecord({ kind: 'record', incidentId: ID, event: alert, service }, state)).toEqual([alert]);
  });

  it('still refuses a service_assigned sent through the timeline', () => {
    const forged: LedgerEvent = { type: 'im.incident.service_assigned', incidentId: ID, time: T0, data: service };
    expect(() => decideRecord({ kind: 'record', incidentId: ID, event: forged }, undefined)).toThrow('recorded by the service only');
  });
});

const POLICY: EscalationPolicyShape = { steps: [{ delay_seconds: 60 }, { delay_seconds: 120 }], repeat: 0 };
const incident = (fields: Partial<Incident>, escalation: Partial<NonNullable<Incident['escalation']>> = {}): Incident => ({
  id: ID,
  title: 'Down',
  severity: 'SEV-1',
  status: 'open',
  createdAt: T0,
  updatedAt: T0,
  escalation: { serviceId: 'svc-checkout', policyId: 'pol-1', step: 0, round: 0, pagedAt: null, paged: [], exhausted: false, ...escalation },
  ...fields,
});

describe('what a timer finds due', () => {
  it('pages step 1 from the moment an open incident with a policy opened', () => {
    expect(pagingDue(incident({}), POLICY)).toEqual({ kind: 'page', at: T0 });
  });

  it('escalates from the step it saw its delay after that step’s page', () => {
    expect(pagingDue(incident({}, { step: 2, round: 1, pagedAt: at(60) }), POLICY)).toEqual({ kind: 'escalate', at: at(180), seen: { step: 2, round: 1 } });
  });

  it('finds nothing once the incident left open, has no policy or is exhausted', () => {
    expect(pagingDue(incident({ status: 'acknowledged' }, { step: 1, round: 1, pagedAt: T0 }), POLICY)).toBeUndefined();
    expect(pagingDue(incident({}, { policyId: null }), POLICY)).toBeUndefined();
    expect(pagingDue(incident({ escalation: undefined }), POLICY)).toBeUndefined();
    expect(pagingDue(incident({}, { step: 2, round: 1, pagedAt: T0, exhausted: true }), POLICY)).toBeUndefined();
  });

  it('due, the decider moves an open incident on; one instant early, it decides nothing (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 86_400 }), (step, round, pagedAfter) => {
        const state = incident({}, { step, round, pagedAt: at(pagedAfter) });
        const policy = { ...POLICY, repeat: 2 };
        const due = pagingDue(state, policy);
        if (due?.kind !== 'escalate') throw new Error('an open, paged incident is always due some time');
        const escalate = (time: string) => decide({ kind: 'escalate', incidentId: ID, time, reason: 'timeout', seen: due.seen, policy, targets: [] }, state);
        expect(escalate(new Date(Date.parse(due.at) - 1).toISOString())).toEqual([]);
        expect(escalate(due.at).length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('a responder’s escalation', () => {
  it('is allowed while open or acknowledged with a step left, and refused (409) otherwise', () => {
    expect(manualEscalationRefusal(incident({}), POLICY)).toBeUndefined();
    expect(manualEscalationRefusal(incident({ status: 'acknowledged' }, { step: 1, round: 1, pagedAt: T0 }), POLICY)).toBeUndefined();
    expect(manualEscalationRefusal(incident({ status: 'mitigated' }), POLICY)).toBeInstanceOf(ConflictError);
    expect(manualEscalationRefusal(incident({}, { step: 2, round: 1, pagedAt: T0 }), POLICY)?.message).toMatch('no step is left');
    expect(manualEscalationRefusal(incident({}, { policyId: null }), POLICY)?.message).toMatch('no escalation policy');
    expect(manualEscalationRefusal(incident({}), NO_STEPS)?.message).toMatch('no step is left');
  });
});

const SCHEDULE = compileSchedule({
  timeZone: 'Europe/Berlin',
  layers: [{ name: 'day', start: '2026-11-01T00:00:00Z', rotation: { every: 1, unit: 'days' }, users: ['carol', 'dave'] }],
  overrides: [],
});
const EMPTY = compileSchedule({ timeZone: 'UTC', layers: [], overrides: [] });

describe('step targets at an instant', () => {
  it('pages user targets, whoever is on call in a schedule target, and lists the unstaffed', () => {
    const schedules = new Map([['s-day', SCHEDULE], ['s-empty', EMPTY]]);
    const oncall = onCallAt(SCHEDULE, Date.parse(T0)) as string;
    const targets = stepTargetsAt(
      [
        { targets: [{ type: 'user', id: 'alice' }, { type: 'schedule', id: 's-day' }] },
        { targets: [{ type: 'schedule', id: 's-empty' }, { type: 'schedule', id: 's-gone' }] },
      ],
      schedules,
      Date.parse(T0),
    );
    expect(targets).toEqual([
      { paged: [{ user: 'alice', via: 'user' }, { user: oncall, via: 'schedule:s-day' }], unstaffed: [] },
      { paged: [], unstaffed: ['s-empty', 's-gone'] },
    ]);
  });

  it('accounts for every target once: a user, someone on call, or unstaffed; a user named twice is paged once (property)', () => {
    const target: fc.Arbitrary<PolicyTarget> = fc.oneof(
      fc.record({ type: fc.constant('user' as const), id: fc.constantFrom('carol', 'dave', 'erin') }),
      fc.record({ type: fc.constant('schedule' as const), id: fc.constantFrom('s-day', 's-empty', 's-gone') }),
    );
    const schedules = new Map([['s-day', SCHEDULE], ['s-empty', EMPTY]]);
    fc.assert(
      fc.property(fc.array(fc.array(target, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 30 * 86_400_000 }), (steps, offset) => {
        const instant = Date.parse(T0) + offset;
        const resolved = stepTargetsAt(steps.map((targets) => ({ targets })), schedules, instant);
        resolved.forEach(({ paged, unstaffed }, i) => {
          expect(paged.length + unstaffed.length).toBe(steps[i].length);
          paged.filter((p) => p.via.startsWith('schedule:')).forEach((p) => expect(p.user).toBe(onCallAt(SCHEDULE, instant)));
          const users = pageData({ step: i + 1, round: 1 }, { paged, unstaffed }).paged.map((p) => p.user);
          expect(new Set(users).size).toBe(users.length);
          expect(new Set(users)).toEqual(new Set(paged.map((p) => p.user)));
        });
      }),
    );
  });
});

