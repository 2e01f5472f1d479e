import type { HeartbeatRecord } from '@im/read-models';
import { heartbeatAlertEvent, heartbeatsDue } from './heartbeats-due';

const T0 = '2026-11-22T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000);
const heartbeat = (id: string, over: Partial<HeartbeatRecord> = {}): HeartbeatRecord => ({
  id, name: id, intervalSeconds: 60, serviceId: 'svc', createdAt: T0, lastPingAt: null, firingSince: null, ...over,
});

describe('the heartbeats due at an instant', () => {
  it('finds each heartbeat a whole interval after its last ping or its creation, with the deadline it missed', () => {
    const heartbeats = [heartbeat('never'), heartbeat('pinged', { lastPingAt: at(30).toISOString() })];
    expect(heartbeatsDue(heartbeats, at(59))).toEqual([]);
    expect(heartbeatsDue(heartbeats, at(60))).toEqual([{ heartbeat: heartbeats[0], deadline: at(60).toISOString() }]);
    expect(heartbeatsDue(heartbeats, at(3600)).map(({ deadline }) => deadline)).toEqual([at(60).toISOString(), at(90).toISOString()]);
  });

  it('finds nothing more once the miss is recorded, until a ping moves the deadline', () => {
    expect(heartbeatsDue([heartbeat('missed', { firingSince: at(60).toISOString() })], at(3600))).toEqual([]);
  });
});

describe('a heartbeat alert', () => {
  it('is a trigger by system:heartbeat on the heartbeat’s fingerprint and service, idempotent on the deadline it missed; its resolve likewise', () => {
    const missed = at(60).toISOString();
    const trigger = heartbeatAlertEvent('trigger', heartbeat('h1', { name: 'Watchdog' }), missed, 'e1', missed);
    expect(trigger).toEqual({
      specversion: '1.0', id: 'e1', source: 'im://heartbeat/h1', type: 'im.alert.trigger', time: missed,
      'im.fingerprint': 'heartbeat:h1', 'im.origin_id': `heartbeat:h1@${missed}`, 'im.actor': 'system:heartbeat',
      data: { title: 'Heartbeat Watchdog missed', severity: 'SEV-2', service: 'svc', heartbeat_id: 'h1', deadline: missed, 'im.sender': 'system:heartbeat' },
    });
    const resolve = heartbeatAlertEvent('resolve', heartbeat('h1'), missed, 'e2', at(70).toISOString());
    expect(resolve).toMatchObject({ type: 'im.alert.resolve', 'im.origin_id': `heartbeat:h1@${missed}:resolved`, time: at(70).toISOString(), data: { heartbeat_id: 'h1', deadline: missed } });
  });
});
