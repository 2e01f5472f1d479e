import type { CloudEvent } from '@im/cloudevents';
import { type Incident, InvalidError, NotFoundError } from '@im/incidents';
import { type AppendLookups, type AppendPlan, decideAppend, planAppend, RouteChangedError } from './append-plan';

const event = (fields: Partial<CloudEvent>): CloudEvent => ({ specversion: '1.0', id: 'e1', source: 'im://test', type: 'im.incident.note', time: '2026-11-22T00:00:00Z', ...fields });

/** Lookups over nothing stored, unless told otherwise; fresh ids count up. */
const lookups = (overrides: Partial<AppendLookups> = {}): AppendLookups => {
  let drawn = 0;
  return {
    duplicateOf: async () => undefined,
    boundIncident: async () => undefined,
    joinOrClaim: async () => 'INC-0000c1a1',
    newIncidentId: () => `INC-0000000${++drawn}`,
    ...overrides,
  };
};

const incident = (status: Incident['status']): Incident => ({ id: 'INC-0000c1a1', title: 't', severity: 'SEV-2', status, createdAt: 'x', updatedAt: 'x' });

const appendPlan = (plan: AppendPlan) => {
  if (plan.kind !== 'append') throw new Error(`planned ${plan.kind}`);
  return plan;
};

describe('planning an append', () => {
  it('does not look up an id the service drew for the event, but still records and checks it on append', async () => {
    const asked: string[][] = [];
    const plan = appendPlan(await planAppend(event({ id: 'drawn-1', type: 'im.alert.trigger', 'im.origin_id': 'o-1', 'im.fingerprint': 'fp' }), lookups({
      duplicateOf: async (keys) => void asked.push(keys),
    }), { idDrawnHere: true }));
    expect(asked).toEqual([['origin\nim://test\no-1']]);
    expect(plan.dedupKeys).toEqual(['id\nim://test\ndrawn-1', 'origin\nim://test\no-1']);
  });

  it('answers a duplicate before routing: nothing is claimed or drawn', async () => {
    const joinOrClaim = jest.fn();
    const plan = await planAppend(event({ 'im.origin_id': 'o-1', 'im.fingerprint': 'fp' }), lookups({
      duplicateOf: async (keys) => (keys.includes('origin\nim://test\no-1') ? { eventId: 'first', incidentId: 'INC-00000abc' } : undefined),
      joinOrClaim,
    }));
    expect(plan).toEqual({ kind: 'duplicate', eventId: 'first', incidentId: 'INC-00000abc' });
    expect(joinOrClaim).not.toHaveBeenCalled();
  });

  it('opens a fresh incident for a declare without subject, storing the subject it chose', async () => {
    const plan = appendPlan(await planAppend(event({ type: 'im.incident.declare', data: { title: 'Down', severity: 'SEV-1' } }), lookups()));
    expect(plan).toMatchObject({ incidentId: 'INC-00000001', opensIncident: true, dedupKeys: ['id\nim://test\ne1'] });
    expect(plan.event.subject).toBe('incident/INC-00000001');
    expect(decideAppend(plan, undefined)).toEqual([plan.event]);
  });

  it('routes an alert by its fingerprint, and holds it only while that incident is unresolved', async () => {
    const plan = appendPlan(await planAppend(event({ type: 'im.alert.trigger', 'im.fingerprint': 'fp' }), lookups()));
    expect(plan).toMatchObject({ incidentId: 'INC-0000c1a1', opensIncident: false });
    expect(decideAppend(plan, incident('acknowledged'))).toEqual([plan.event]);
    expect(() => decideAppend(plan, incident('resolved'))).toThrow(RouteChangedError);
  });

  it('resolves an alert by fingerprint only where one was bound', async () => {
    const resolve = event({ type: 'im.alert.resolve', 'im.fingerprint': 'fp' });
    await expect(planAppend(resolve, lookups())).rejects.toThrow(NotFoundError);
    const plan = appendPlan(await planAppend(resolve, lookups({ boundIncident: async () => 'INC-0000c1a1' })));
    expect(plan.incidentId).toBe('INC-0000c1a1');
  });

  it('needs a subject for any other event, and a well-formed one to open an incident', async () => {
    await expect(planAppend(event({}), lookups())).rejects.toThrow(InvalidError);
    await expect(planAppend(event({ type: 'im.incident.declare', subject: 'incident/nope' }), lookups())).rejects.toThrow(/INC-<8 lowercase hex/);
  });

  it('decides like the domain: a note on an unknown incident is not found', async () => {
    const plan = appendPlan(await planAppend(event({ subject: 'incident/INC-00000def', data: { content: 'hi' } }), lookups()));
    expect(() => decideAppend(plan, undefined)).toThrow('Incident INC-00000def not found');
  });
});
