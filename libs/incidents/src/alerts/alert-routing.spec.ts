import fc from 'fast-check';
import { InvalidError, NotFoundError } from '../domain-errors';
import type { IncidentState } from '../incident';
import { decideRecord, evolve, RouteChangedError } from '../incident.decider';
import type { LedgerEvent } from '../incident-events';
import { FINGERPRINT_BIND_TYPE } from '../stream-names';
import { fingerprintDecider, type FingerprintState, type Route, routeEvent, type RoutingFacts } from './alert-routing';

const T0 = '2026-11-22T10:00:00.000Z';
const DRAWN = 'INC-0000000d';
const BOUND = 'INC-0000000b';
const TRIGGER = 'im.alert.trigger';
const RESOLVE = 'im.alert.resolve';

const incident = (status: string): IncidentState =>
  ({ id: BOUND, title: 'Disk', severity: 'SEV-3', status, createdAt: T0, updatedAt: T0 }) as IncidentState;
const facts = (over: Partial<RoutingFacts> = {}): RoutingFacts => ({ bound: undefined, boundIncident: undefined, ...over });

describe('routeEvent', () => {
  it('answers a duplicate before anything else', () => {
    expect(routeEvent({ type: TRIGGER, fingerprint: 'disk' }, facts({ duplicate: { eventId: 'e1', incidentId: BOUND } }))).toEqual({
      kind: 'duplicate',
      eventId: 'e1',
      incidentId: BOUND,
    });
  });

  it('sends an event to the incident its subject names, and refuses to open one under a malformed id', () => {
    expect(routeEvent({ type: 'im.incident.note', named: 'anything' }, facts())).toEqual({ kind: 'existing', incidentId: 'anything' });
    expect(routeEvent({ type: TRIGGER, named: BOUND, fingerprint: 'disk' }, facts())).toEqual({ kind: 'existing', incidentId: BOUND });
    expect(() => routeEvent({ type: 'im.incident.declare', named: 'INC-x' }, facts())).toThrow(
      new InvalidError('to open an incident, subject must be incident/INC-<8 lowercase hex characters>'),
    );
  });

  it('opens a new incident for a declare or a trigger without subject or fingerprint', () => {
    expect(routeEvent({ type: 'im.incident.declare' }, facts())).toEqual({ kind: 'open' });
    expect(routeEvent({ type: TRIGGER }, facts())).toEqual({ kind: 'open' });
  });

  it("joins a trigger to its fingerprint's unresolved incident (one claimed but never written too), else opens one and claims the fingerprint", () => {
    for (const status of ['open', 'acknowledged', 'mitigated']) {
      expect(routeEvent({ type: TRIGGER, fingerprint: 'disk' }, facts({ bound: BOUND, boundIncident: incident(status) }))).toEqual({ kind: 'join', incidentId: BOUND });
    }
    expect(routeEvent({ type: TRIGGER, fingerprint: 'disk' }, facts({ bound: BOUND }))).toEqual({ kind: 'join', incidentId: BOUND });
    for (const boundFacts of [facts(), facts({ bound: BOUND, boundIncident: incident('resolved') }), facts({ bound: BOUND, boundIncident: incident('closed') })]) {
      expect(routeEvent({ type: TRIGGER, fingerprint: 'disk' }, boundFacts)).toEqual({ kind: 'open', claims: 'disk' });
    }
  });

  it("sends a resolve to its fingerprint's incident whatever its state, and refuses one that names nothing", () => {
    expect(routeEvent({ type: RESOLVE, fingerprint: 'disk' }, facts({ bound: BOUND, boundIncident: incident('resolved') }))).toEqual({ kind: 'existing', incidentId: BOUND });
    expect(() => routeEvent({ type: RESOLVE, fingerprint: 'disk' }, facts())).toThrow(new NotFoundError('No incident has joined fingerprint disk'));
    expect(() => routeEvent({ type: RESOLVE }, facts())).toThrow(new InvalidError('im.alert.resolve needs subject or im.fingerprint'));
    expect(() => routeEvent({ type: 'im.incident.note' }, facts())).toThrow(new InvalidError('subject (incident/<incident_id>) is required for im.incident.note'));
  });

  it('lets a joining alert be stored only while its incident stays unresolved', () => {
    const alert: LedgerEvent = { type: TRIGGER, incidentId: BOUND, time: T0, fingerprint: 'disk' };
    expect(decideRecord({ kind: 'record', incidentId: BOUND, event: alert, whileUnresolved: true }, incident('acknowledged'))).toEqual([alert]);
    expect(() => decideRecord({ kind: 'record', incidentId: BOUND, event: alert, whileUnresolved: true }, incident('resolved'))).toThrow(RouteChangedError);
  });
});

describe('fingerprintDecider', () => {
  it('claims the fingerprint for an incident once, and folds the last claim', () => {
    const claim = { kind: 'claim' as const, fingerprint: 'disk', incidentId: DRAWN };
    const events = fingerprintDecider.decide(claim, undefined);
    expect(events).toEqual([{ type: FINGERPRINT_BIND_TYPE, data: { fingerprint: 'disk', incident_id: DRAWN } }]);
    const state = events.reduce(fingerprintDecider.evolve, fingerprintDecider.initialState);
    expect(state).toBe(DRAWN);
    expect(fingerprintDecider.decide(claim, state)).toEqual([]);
  });
});

/**
 * A fingerprint's alerts as the write path stores them: each trigger routed
 * on the stored state, then stored (with the claim when it opens an incident);
 * between them, responders resolve or close incidents.
 */
describe('alert routing over any history of one fingerprint', () => {
  type Step = { kind: 'trigger' } | { kind: 'resolve'; which: number } | { kind: 'close'; which: number };
  const step = fc.oneof(
    fc.constant<Step>({ kind: 'trigger' }),
    fc.nat(5).map((which): Step => ({ kind: 'resolve', which })),
    fc.nat(5).map((which): Step => ({ kind: 'close', which })),
  );

  it('keeps one unresolved incident per fingerprint, which every trigger joins', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let bound: FingerprintState = fingerprintDecider.initialState;
        const incidents = new Map<string, IncidentState>();
        const store = (incidentId: string, event: Omit<LedgerEvent, 'incidentId' | 'time'>) =>
          incidents.set(incidentId, evolve(incidents.get(incidentId), { ...event, incidentId, time: T0 }));
        for (const s of steps) {
          const ids = [...incidents.keys()];
          if (s.kind !== 'trigger') {
            if (ids.length > 0) store(ids[s.which % ids.length], { type: s.kind === 'resolve' ? 'im.incident.resolve' : 'im.incident.close' });
            continue;
          }
          const drawn = `INC-${incidents.size.toString(16).padStart(8, '0')}`;
          const route: Route = routeEvent({ type: TRIGGER, fingerprint: 'disk' }, { bound, boundIncident: bound === undefined ? undefined : incidents.get(bound) });
          let incidentId = drawn;
          if (route.kind === 'open') {
            expect(route.claims).toBe('disk');
            bound = fingerprintDecider.decide({ kind: 'claim', fingerprint: 'disk', incidentId }, bound).reduce(fingerprintDecider.evolve, bound);
          } else {
            expect(route).toEqual({ kind: 'join', incidentId: bound });
            incidentId = route.kind === 'join' ? route.incidentId : '';
          }
          store(incidentId, { type: TRIGGER, fingerprint: 'disk' });
          expect(bound).toBe(incidentId);
          const open = [...incidents.values()].filter((state) => state!.status !== 'resolved' && state!.status !== 'closed');
          expect(open.map((state) => state!.id)).toEqual([bound]);
          expect(incidents.get(bound!)?.firingAlerts).toEqual(['disk']);
        }
      }),
    );
  });
});
