import type { Incident } from '@im/incidents';
import type { EscalationPolicyRecord } from '@im/read-models';
import { escalationsDue } from './escalations-due';

const T0 = '2026-11-22T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000);

const POLICY: EscalationPolicyRecord = {
  id: 'pol-1',
  name: 'Checkout',
  steps: [
    { delay_seconds: 60, targets: [{ type: 'user', id: 'ann' }] },
    { delay_seconds: 300, targets: [{ type: 'user', id: 'bob' }] },
  ],
  repeat: 0,
  createdAt: T0,
};
const POLICIES = new Map([[POLICY.id, POLICY]]);

const incident = (id: string, escalation: Partial<NonNullable<Incident['escalation']>>, status: Incident['status'] = 'open'): Incident => ({
  id,
  title: id,
  severity: 'SEV-1',
  status,
  createdAt: T0,
  updatedAt: T0,
  escalation: { serviceId: 'svc', policyId: 'pol-1', step: 0, round: 0, pagedAt: null, paged: [], exhausted: false, ...escalation },
});

const due = (incidents: Incident[], now: Date) => escalationsDue(incidents, POLICIES, now).map(({ incident: { id }, due }) => ({ id, ...due }));

describe('the escalations due at an instant', () => {
  it('pages an incident never paged at once, and escalates a step once its delay has passed', () => {
    const incidents = [incident('new', {}), incident('step-1', { step: 1, round: 1, pagedAt: T0 }), incident('step-2', { step: 2, round: 1, pagedAt: at(60).toISOString() })];
    expect(due(incidents, at(59))).toEqual([{ id: 'new', kind: 'page', at: T0 }]);
    expect(due(incidents, at(60))).toEqual([
      { id: 'new', kind: 'page', at: T0 },
      { id: 'step-1', kind: 'escalate', at: at(60).toISOString(), seen: { step: 1, round: 1 } },
    ]);
    expect(due(incidents, at(360)).map(({ id }) => id)).toEqual(['new', 'step-1', 'step-2']);
  });

  it('after a long outage, one escalation per incident from the step it saw, not one per missed step', () => {
    expect(due([incident('down', { step: 1, round: 1, pagedAt: T0 })], at(86_400))).toEqual([{ id: 'down', kind: 'escalate', at: at(60).toISOString(), seen: { step: 1, round: 1 } }]);
  });

  it('finds nothing for an incident no longer open, exhausted, of no policy, or whose policy is gone', () => {
    const later = at(86_400);
    expect(due([incident('acked', { step: 1, round: 1, pagedAt: T0 }, 'acknowledged')], later)).toEqual([]);
    expect(due([incident('done', { step: 2, round: 1, pagedAt: T0, exhausted: true })], later)).toEqual([]);
    expect(due([incident('none', { policyId: null })], later)).toEqual([]);
    expect(due([incident('gone', { policyId: 'pol-deleted' })], later)).toEqual([]);
  });
});
