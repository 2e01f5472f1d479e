import type { CloudEvent } from '@im/cloudevents';
import { decideRecord, type Incident, InvalidError, NotFoundError, RouteChangedError } from '@im/incidents';
import { type AppendLookups, type FingerprintFacts, planAppend, recording } from './append-plan';

const event = (fields: Partial<CloudEvent>): CloudEvent => ({ specversion: '1.0', id: 'e1', source: 'im://test', type: 'im.incident.note', time: '2026-11-22T00:00:00Z', ...fields });

const incident = (status: Incident['status']): Incident => ({ id: 'INC-0000c1a1', title: 't', severity: 'SEV-2', status, createdAt: 'x', updatedAt: 'x' });

/** Lookups over nothing stored, unless told otherwise. */
const lookups = (overrides: Partial<AppendLookups<FingerprintFacts>> = {}): AppendLookups<FingerprintFacts> => ({
  duplicateOf: async () => undefined,
  fingerprint: async () => ({ bound: undefined, boundIncident: undefined }),
  ...overrides,
});
const boundTo = (state: Incident | undefined) => lookups({ fingerprint: async () => ({ bound: 'INC-0000c1a1', boundIncident: state }) });

describe('planning an append', () => {
  it('does not look up an id the service drew for the event, but still records and checks it on append', async () => {
    const asked: string[][] = [];
    const plan = await planAppend(event({ id: 'drawn-1', type: 'im.alert.trigger', 'im.origin_id': 'o-1', 'im.fingerprint': 'fp' }), lookups({
      duplicateOf: async (keys) => void asked.push(keys),
    }), { idDrawnHere: true });
    expect(asked).toEqual([['origin\nim://test\no-1']]);
    expect(plan.dedupKeys).toEqual(['id\nim://test\ndrawn-1', 'origin\nim://test\no-1']);
  });

  it('answers a duplicate before routing: no fingerprint is read', async () => {
    const fingerprint = jest.fn();
    const plan = await planAppend(event({ 'im.origin_id': 'o-1', 'im.fingerprint': 'fp' }), lookups({
      duplicateOf: async (keys) => (keys.includes('origin\nim://test\no-1') ? { eventId: 'first', incidentId: 'INC-00000abc' } : undefined),
      fingerprint,
    }));
    expect(plan.route).toEqual({ kind: 'duplicate', eventId: 'first', incidentId: 'INC-00000abc' });
    expect(fingerprint).not.toHaveBeenCalled();
  });

  it('opens a fresh incident for a declare without subject, storing the subject it chose', async () => {
    const declare = event({ type: 'im.incident.declare', data: { title: 'Down', severity: 'SEV-1' } });
    const plan = await planAppend(declare, lookups());
    expect(plan).toMatchObject({ route: { kind: 'open' }, dedupKeys: ['id\nim://test\ne1'] });
    const { stored, command } = recording(declare, 'INC-00000001', plan.route);
    expect(stored.subject).toBe('incident/INC-00000001');
    expect(decideRecord(command, undefined)).toEqual([command.event]);
  });

  it('routes an alert by its fingerprint, and holds it only while that incident is unresolved', async () => {
    const alert = event({ type: 'im.alert.trigger', 'im.fingerprint': 'fp' });
    const { route } = await planAppend(alert, boundTo(incident('acknowledged')));
    expect(route).toEqual({ kind: 'join', incidentId: 'INC-0000c1a1' });
    const { command } = recording(alert, 'INC-0000c1a1', route);
    expect(decideRecord(command, incident('acknowledged'))).toEqual([command.event]);
    expect(() => decideRecord(command, incident('resolved'))).toThrow(RouteChangedError);
    expect((await planAppend(alert, boundTo(incident('resolved')))).route).toEqual({ kind: 'open', claims: 'fp' });
  });

  it('resolves an alert by fingerprint only where one was bound', async () => {
    const resolve = event({ type: 'im.alert.resolve', 'im.fingerprint': 'fp' });
    await expect(planAppend(resolve, lookups())).rejects.toThrow(NotFoundError);
    expect((await planAppend(resolve, boundTo(incident('resolved')))).route).toEqual({ kind: 'existing', incidentId: 'INC-0000c1a1' });
  });

  it('needs a subject for any other event, and a well-formed one to open an incident', async () => {
    await expect(planAppend(event({}), lookups())).rejects.toThrow(InvalidError);
    await expect(planAppend(event({ type: 'im.incident.declare', subject: 'incident/nope' }), lookups())).rejects.toThrow(/INC-<8 lowercase hex/);
  });

  it('decides like the domain: a note on an unknown incident is not found', async () => {
    const note = event({ subject: 'incident/INC-00000def', data: { content: 'hi' } });
    const { route } = await planAppend(note, lookups());
    expect(() => decideRecord(recording(note, 'INC-00000def', route).command, undefined)).toThrow('Incident INC-00000def not found');
  });
});
