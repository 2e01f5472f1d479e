import fc from 'fast-check';
import { ForbiddenError } from '../domain-errors';
import { checkMayPing, heartbeatDeadline, heartbeatPingDecider, heartbeatStatus, heartbeatStatusAt } from './heartbeat';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const at = (seconds: number) => T0 + seconds * 1000;

describe('a heartbeat is overdue a whole interval after its last ping, or after its creation', () => {
  const created = { createdAt: iso(T0), lastPingAt: null, intervalSeconds: 60 };

  it('waits before any ping, and is overdue from the interval after creation on', () => {
    expect(heartbeatStatus(created, at(59.999))).toBe('waiting');
    expect(heartbeatDeadline(created)).toBe(at(60));
    expect(heartbeatStatus(created, at(60))).toBe('overdue');
  });

  it('is ok after a ping until the interval after it has passed', () => {
    const pinged = { ...created, lastPingAt: iso(at(50)) };
    expect(heartbeatStatus(pinged, at(109))).toBe('ok');
    expect(heartbeatStatus(pinged, at(110))).toBe('overdue');
  });

  it('answers for a past instant from the ledger: pings recorded after it are not counted', () => {
    const pings = [iso(at(30)), iso(at(200))];
    expect(heartbeatStatusAt(iso(T0), 60, pings, at(80))).toBe('ok');
    expect(heartbeatStatusAt(iso(T0), 60, pings, at(150))).toBe('overdue');
    expect(heartbeatStatusAt(iso(T0), 60, pings, at(201))).toBe('ok');
  });
});

describe('the overdue computation, as properties', () => {
  const intervals = fc.integer({ min: 10, max: 86_400 });
  // Pings in the first 10 days after creation, to the millisecond, unordered.
  const pings = fc.array(fc.integer({ min: 0, max: 10 * 86_400_000 }), { maxLength: 30 });
  const instants = fc.integer({ min: 0, max: 11 * 86_400_000 });

  it('is overdue at T exactly when a whole interval before T lies after creation with no ping in (T - interval, T]', () => {
    fc.assert(
      fc.property(intervals, pings, instants, (interval, offsets, t) => {
        const T = T0 + t;
        const windowStart = T - interval * 1000;
        const silent = windowStart >= T0 && !offsets.some((offset) => T0 + offset > windowStart && T0 + offset <= T);
        const status = heartbeatStatusAt(iso(T0), interval, offsets.map((offset) => iso(T0 + offset)), T);
        expect(status === 'overdue').toBe(silent);
        if (!silent) expect(status).toBe(offsets.some((offset) => T0 + offset <= T) ? 'ok' : 'waiting');
      }),
    );
  });

  it('never says overdue before its deadline, and a ping always moves the deadline to a whole interval after it', () => {
    fc.assert(
      fc.property(intervals, fc.option(fc.integer({ min: 0, max: 86_400_000 }), { nil: null }), instants, (interval, ping, t) => {
        const heartbeat = { createdAt: iso(T0), lastPingAt: ping === null ? null : iso(T0 + ping), intervalSeconds: interval };
        const deadline = heartbeatDeadline(heartbeat);
        expect(deadline).toBe(T0 + (ping ?? 0) + interval * 1000);
        expect(heartbeatStatus(heartbeat, T0 + t) === 'overdue').toBe(T0 + t >= deadline);
      }),
    );
  });
});

describe('who pings a heartbeat', () => {
  const heartbeat = { id: 'hb-1', serviceId: 'svc-1' };

  it('an integration key of its service, or an oncall.admin', () => {
    expect(() => checkMayPing({ admin: false, keyServiceId: 'svc-1' }, heartbeat)).not.toThrow();
    expect(() => checkMayPing({ admin: true }, heartbeat)).not.toThrow();
  });

  it.each([
    ['a key of another service', { admin: false, keyServiceId: 'svc-2' }],
    ['a key of no service', { admin: false, keyServiceId: null }],
    ['a token without oncall.admin', { admin: false }],
  ])('refuses %s (403)', (_, caller) => {
    expect(() => checkMayPing(caller, heartbeat)).toThrow(
      new ForbiddenError('Heartbeat hb-1 is pinged only with an integration key of its service (svc-1) or with the oncall.admin role'),
    );
  });
});

describe('the pings stream', () => {
  it('records every ping on the heartbeat\'s own stream', () => {
    expect(heartbeatPingDecider.stream.streamId('hb-1')).toBe('heartbeat-hb-1');
    expect(heartbeatPingDecider.decide({ kind: 'ping' }, null)).toEqual([{ type: 'im.heartbeat.ping', data: {} }]);
  });
});
