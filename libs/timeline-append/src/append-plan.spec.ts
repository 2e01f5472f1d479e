import type { CloudEvent } from '@im/cloudevents';
import { decideRecord, type Incident, InvalidError, NotFoundError, RouteChangedError } from '@im/incidents';
import { type AppendLookups, type FingerprintFacts, planAppend, recording } from './append-plan';

const event = (fields: Partial<CloudEvent>): CloudEvent => ({ specversion: '1.0', id: 'e1', source: 'im://test', type: 'im.incident.note', time: '2026-11-22T00:00:00Z', ...fields });

const incident = (status: Incident['status']): Incident => ({ id: 'INC-0000c1a1', title: 't', severity: 'SEV-2', status, createdAt: 'x', updatedAt: 'x' });

/** Lookups over nothing stored, unless told otherwise. */
const lookups = (overrides: Partial<AppendLookups<FingerprintFacts>> = {}): AppendLookups<FingerprintFacts> => ({
  duplicateOf: async () => undefined,
  fingerprint: async () => ({ bound: undefined, boundIncident: undefined }),
  incident: async () => undefined,
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

  describe('a fingerprint whose incident is a duplicate', () => {
    const A = 'INC-0000000a';
    const B = 'INC-0000000b';
    const C = 'INC-0000000c';
    const at = (id: string, status: Incident['status'], duplicateOf?: string): Incident => ({ ...incident(status), id, ...(duplicateOf ? { duplicateOf } : {}) });
    /** The fingerprint claimed by A; the stored incidents by id. */
    const stored = (...incidents: Incident[]) =>
      lookups({
        fingerprint: async () => ({ bound: A, boundIncident: incidents.find((i) => i.id === A) }),
        incident: async (id) => incidents.find((i) => i.id === id),
      });
    const trigger = event({ type: 'im.alert.trigger', 'im.fingerprint': 'fp' });
    const resolve = event({ type: 'im.alert.resolve', 'im.fingerprint': 'fp' });

    it('sends its alerts to the incident it duplicates, link after link', async () => {
      expect((await planAppend(trigger, stored(at(A, 'duplicate', B), at(B, 'acknowledged')))).route).toEqual({ kind: 'join', incidentId: B });
      expect((await planAppend(trigger, stored(at(A, 'duplicate', B), at(B, 'duplicate', C), at(C, 'open')))).route).toEqual({ kind: 'join', incidentId: C });
      expect((await planAppend(resolve, stored(at(A, 'duplicate', B), at(B, 'resolved')))).route).toEqual({ kind: 'existing', incidentId: B });
    });

    it('opens a new incident when the one at the end is over, as for any resolved one', async () => {
      expect((await planAppend(trigger, stored(at(A, 'duplicate', B), at(B, 'closed')))).route).toEqual({ kind: 'open', claims: 'fp' });
    });

    it('stops at a loop (two incidents marked duplicates of each other at once) and opens a new incident', async () => {
      const read = jest.fn();
      const loop = stored(at(A, 'duplicate', B), at(B, 'duplicate', A));
      const plan = await planAppend(trigger, { ...loop, incident: (id) => (read(id), loop.incident(id)) });
      expect(plan.route).toEqual({ kind: 'open', claims: 'fp' });
      expect(read).toHaveBeenCalledTimes(16);
    });

    it('treats a canceled incident as a resolved one: a trigger opens a new incident, a resolve is recorded there', async () => {
      expect((await planAppend(trigger, stored(at(A, 'canceled')))).route).toEqual({ kind: 'open', claims: 'fp' });
      expect((await planAppend(resolve, stored(at(A, 'canceled')))).route).toEqual({ kind: 'existing', incidentId: A });
    });

    it('does not hold an alert on an incident that became a duplicate or was canceled while it was routed', () => {
      const { command } = recording(trigger, A, { kind: 'join', incidentId: A });
      expect(() => decideRecord(command, at(A, 'duplicate', B))).toThrow(RouteChangedError);
      expect(() => decideRecord(command, at(A, 'canceled'))).toThrow(RouteChangedError);
    });
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
