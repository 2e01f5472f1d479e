import fc from 'fast-check';
import type { CloudEvent } from '@im/cloudevents';
import { type Incident, SEVERITIES } from '@im/incidents';
import type { RecordedEvent } from '@im/event-store';
import { assignmentProjection } from './assignments/assignment.projection';
import { incidentProjection } from './incidents/incident.projection';
import { integrationKeyProjection } from './integration-keys/integration-key.projection';
import { integrationKeyHistoryProjection } from './integration-keys/integration-key-history.projection';
import { preferencesProjection } from './preferences/preferences.projection';
import { probeProjection } from './probes/probe.projection';
import { pushSubscriptionProjection } from './push-subscriptions/push-subscription.projection';
import type { Projection } from './projection';
import { foldBatch } from './projection-runner';
import type { ProjectionCommit, ProjectionStore, StoredDocument } from './projection-store.port';
import { timelineProjection, toTimelineEntry } from './timeline/timeline.projection';
import { escalationPolicyProjection, scheduleProjection, serviceProjection } from './oncall/oncall.projections';
import { heartbeatProjection } from './oncall/heartbeat.projection';
import { incidentMetricsProjection } from './metrics/incident-metrics.projection';

/** The projections are pure folds: these tests give them events and read the documents, with no store but a map. */

let position = 0n;
/** An event as the log delivers it; `recordedAt` is a minute after its `time`. */
function recorded(streamId: string, type: string, extra: Partial<CloudEvent> = {}): RecordedEvent {
  position += 1n;
  const minute = Number(position);
  return {
    streamId,
    revision: 0n,
    position,
    recordedAt: new Date(Date.UTC(2026, 10, 22, 10, minute + 1)).toISOString(),
    event: {
      specversion: '1.0',
      id: `evt-${position}`,
      source: 'im://test',
      type,
      time: new Date(Date.UTC(2026, 10, 22, 10, minute)).toISOString(),
      ...extra,
    },
  };
}

/** Documents by key as the runner keeps them: each batch folded by foldBatch (which skips what a document already reflects), then committed. */
class Documents<Doc> {
  readonly stored = new Map<string, StoredDocument<Doc>>();
  readonly commits: ProjectionCommit<Doc>[] = [];

  constructor(private readonly projection: Projection<Doc>) {}

  async deliver(...batch: RecordedEvent[]): Promise<this> {
    const store = { load: async (_: string, keys: string[]) => new Map(keys.flatMap((key) => (this.stored.has(key) ? [[key, this.stored.get(key)!]] : []))) };
    const commit = await foldBatch(store as unknown as ProjectionStore, this.projection, batch);
    this.commits.push(commit);
    for (const { key, doc, position: at } of commit.writes) {
      if (doc === undefined) this.stored.delete(key);
      else this.stored.set(key, { doc, position: at });
    }
    return this;
  }

  doc(key: string): Doc | undefined {
    return this.stored.get(key)?.doc;
  }

  get lastWrites() {
    return this.commits[this.commits.length - 1].writes;
  }
}

const INCIDENT = 'INC-0000000a';
const stream = `incident-${INCIDENT}`;
const declare = () => recorded(stream, 'im.incident.declare', { data: { title: ' Disk full ', severity: 'SEV-2' }, 'im.visibility': 'restricted' });

describe('incident projection', () => {
  it('folds an incident stream into the incident, with the times the ledger recorded', async () => {
    const declared = declare();
    const acked = recorded(stream, 'im.incident.ack');
    const assigned = recorded(stream, 'im.incident.role_assigned', { data: { role: 'IC', user_id: 'alice' } });
    const docs = await new Documents(incidentProjection).deliver(declared, acked, assigned);
    expect([...docs.stored.keys()]).toEqual([INCIDENT]);
    expect(docs.doc(INCIDENT)).toEqual({
      id: INCIDENT,
      title: 'Disk full',
      severity: 'SEV-2',
      status: 'acknowledged',
      createdAt: declared.recordedAt,
      updatedAt: assigned.recordedAt,
      roles: { IC: 'alice' },
      visibility: 'restricted',
    });
    expect(docs.stored.get(INCIDENT)?.position).toBe(assigned.position);
  });

  it('concerns incident streams only', () => {
    expect(incidentProjection.keyOf(recorded('user-alice', 'im.user.preferences_updated'))).toBeUndefined();
    expect(incidentProjection.keyOf(recorded('fingerprint-disk', 'im.alert.trigger'))).toBeUndefined();
    expect(incidentProjection.keyOf(recorded('diagnostics-1', 'im.diagnostics.probe'))).toBeUndefined();
  });

  it('ignores a lifecycle event before the declaration, and a refused transition', async () => {
    const docs = await new Documents(incidentProjection).deliver(recorded(stream, 'im.incident.ack'));
    expect(docs.doc(INCIDENT)).toBeUndefined();
    await docs.deliver(declare(), recorded(stream, 'im.incident.close'));
    expect(docs.doc(INCIDENT)?.status).toBe('open');
  });

  it('is unchanged by events delivered again (at-least-once), alone or with new ones', async () => {
    const declared = declare();
    const acked = recorded(stream, 'im.incident.ack');
    const docs = await new Documents(incidentProjection).deliver(declared, acked);
    const before = docs.doc(INCIDENT);
    await docs.deliver(declared, acked);
    expect(docs.lastWrites).toEqual([]);
    expect(docs.doc(INCIDENT)).toBe(before);
    const resolved = recorded(stream, 'im.incident.resolve');
    await docs.deliver(acked, resolved);
    expect(docs.doc(INCIDENT)).toEqual({ ...before, status: 'resolved', updatedAt: resolved.recordedAt });
  });

  it('counts the alerts firing now, one per fingerprint: a repeat counts once, a resolve removes it, a re-fire counts again', async () => {
    const alert = (type: string, fingerprint: string) => recorded(stream, type, { 'im.fingerprint': fingerprint, data: { title: 'Disk full' } });
    const firing = (docs: Documents<Incident>) => docs.doc(INCIDENT)?.firingAlerts ?? [];
    const docs = await new Documents(incidentProjection).deliver(alert('im.alert.trigger', 'db-1'), alert('im.alert.trigger', 'db-2'), alert('im.alert.trigger', 'db-1'));
    expect(firing(docs)).toEqual(['db-2', 'db-1']);
    await docs.deliver(alert('im.alert.resolve', 'db-1'), alert('im.alert.resolve', 'db-3'));
    expect(firing(docs)).toEqual(['db-2']);
    await docs.deliver(alert('im.alert.trigger', 'db-1'));
    expect(firing(docs)).toEqual(['db-2', 'db-1']);
    await docs.deliver(alert('im.alert.resolve', 'db-1'), alert('im.alert.resolve', 'db-2'));
    // Alerts resolving leave the incident open (people resolve it), with nothing firing.
    expect(docs.doc(INCIDENT)).toEqual(expect.objectContaining({ status: 'open', title: 'Disk full' }));
    expect(docs.doc(INCIDENT)).not.toHaveProperty('firingAlerts');
  });

  it('does not count an alert event without a fingerprint, nor one before the incident exists', async () => {
    const docs = await new Documents(incidentProjection).deliver(
      recorded(stream, 'im.alert.resolve', { 'im.fingerprint': 'db-1' }),
      declare(),
      recorded(stream, 'im.alert.trigger', { data: { title: 'No fingerprint' } }),
    );
    expect(docs.doc(INCIDENT)).not.toHaveProperty('firingAlerts');
  });
});

describe('timeline projection', () => {
  it('keeps every event of every incident stream, keyed by its log position', async () => {
    const declared = declare();
    const alert = recorded('incident-INC-0000000b', 'im.alert.trigger', { 'im.fingerprint': 'disk:db-1', 'im.correlation_key': 'db' });
    const docs = await new Documents(timelineProjection).deliver(declared, recorded('user-alice', 'im.user.preferences_updated'), alert);
    expect([...docs.stored.keys()]).toEqual([String(declared.position), String(alert.position)]);
    expect(docs.doc(String(alert.position))).toEqual({ incidentId: 'INC-0000000b', eventTime: alert.event.time, createdAt: alert.recordedAt, event: alert.event });
  });

  it('serves each document as an entry: summary, actor, visibility and content by their defaults', () => {
    const note = recorded(stream, 'im.incident.note', { 'im.actor': 'bob', data: { content: 'rolled back' } });
    const alert = recorded(stream, 'im.alert.trigger', { 'im.visibility': 'public', 'im.data_class': ['pii'], data: { title: 'CPU high', message: 'on db-1' } });
    const noteEntry = toTimelineEntry(timelineProjection.evolve(undefined, note)!);
    expect(noteEntry).toMatchObject({ id: note.event.id, incidentId: INCIDENT, eventType: 'im.incident.note', actor: 'bob', title: 'Note', content: 'rolled back', visibility: 'internal', dataClass: [] });
    expect(noteEntry).not.toHaveProperty('correlationKey');
    expect(toTimelineEntry(timelineProjection.evolve(undefined, alert)!)).toMatchObject({
      actor: 'im://test',
      title: 'CPU high',
      content: 'on db-1',
      data: { message: 'on db-1' },
      visibility: 'public',
      dataClass: ['pii'],
    });
  });

  it('orders by the event time in UTC, and refuses a time it cannot order (the runner records a fault)', () => {
    const offset = recorded(stream, 'im.incident.note', { time: '2026-11-22T12:00:00+02:00' });
    expect(timelineProjection.evolve(undefined, offset)?.eventTime).toBe('2026-11-22T10:00:00.000Z');
    expect(() => timelineProjection.evolve(undefined, recorded(stream, 'im.incident.note', { time: 'yesterday' }))).toThrow(/time "yesterday"/);
  });

  it('writes the same document when an event is delivered again (at-least-once: written once, never loaded)', async () => {
    const declared = declare();
    const docs = await new Documents(timelineProjection).deliver(declared);
    const first = docs.doc(String(declared.position));
    await docs.deliver(declared);
    expect(docs.lastWrites).toEqual([{ key: String(declared.position), doc: first, position: declared.position }]);
    expect(timelineProjection.evolve(first, declared)).toBe(first);
  });
});

describe('assignment projection', () => {
  const assign = (role: unknown, user: string, incidentStream = stream) => recorded(incidentStream, 'im.incident.role_assigned', { data: { role, user_id: user } });

  it('keeps who holds each RACI role of each incident, the last assignment winning', async () => {
    const docs = await new Documents(assignmentProjection).deliver(assign('IC', 'alice'), assign('OPS', 'bob'), assign('IC', 'carol'), assign('IC', 'dan', 'incident-INC-0000000b'));
    expect(Object.fromEntries([...docs.stored].map(([key, { doc }]) => [key, doc]))).toEqual({
      [`${INCIDENT}/IC`]: { incidentId: INCIDENT, role: 'IC', userId: 'carol' },
      [`${INCIDENT}/OPS`]: { incidentId: INCIDENT, role: 'OPS', userId: 'bob' },
      'INC-0000000b/IC': { incidentId: 'INC-0000000b', role: 'IC', userId: 'dan' },
    });
  });

  it('ignores an unknown role, other event types and other streams', () => {
    expect(assignmentProjection.keyOf(assign('CHIEF', 'alice'))).toBeUndefined();
    expect(assignmentProjection.keyOf(recorded(stream, 'im.incident.ack', { data: { role: 'IC', user_id: 'x' } }))).toBeUndefined();
    expect(assignmentProjection.keyOf(assign('IC', 'alice', 'user-alice'))).toBeUndefined();
  });

  it('does not let an older assignment delivered again undo a newer one (at-least-once)', async () => {
    const older = assign('IC', 'alice');
    const newer = assign('IC', 'bob');
    const docs = await new Documents(assignmentProjection).deliver(older, newer);
    await docs.deliver(older);
    expect(docs.lastWrites).toEqual([]);
    expect(docs.doc(`${INCIDENT}/IC`)?.userId).toBe('bob');
  });
});

describe('preferences projection', () => {
  const saved = (user: string, pushEnabled: boolean) =>
    recorded(`user-${user}`, 'im.user.preferences_updated', { data: { pushEnabled, severityFilter: ['SEV-1'], quietHours: null, channels: ['push'] } });

  it("keeps each user's last saved preferences, stamped with the event's time", async () => {
    const first = saved('alice', true);
    const second = saved('alice', false);
    const docs = await new Documents(preferencesProjection).deliver(first, saved('bob', true), second);
    expect(docs.doc('alice')).toEqual({ userId: 'alice', pushEnabled: false, severityFilter: ['SEV-1'], quietHours: null, channels: ['push'], updatedAt: second.event.time });
    expect(docs.doc('bob')?.pushEnabled).toBe(true);
  });

  it('ignores other event types and streams', () => {
    expect(preferencesProjection.keyOf(recorded('user-alice', 'im.user.other'))).toBeUndefined();
    expect(preferencesProjection.keyOf(recorded(stream, 'im.user.preferences_updated'))).toBeUndefined();
  });

  it('keeps the newer preferences when an older update is delivered again (at-least-once)', async () => {
    const first = saved('alice', true);
    const docs = await new Documents(preferencesProjection).deliver(first, saved('alice', false));
    await docs.deliver(first);
    expect(docs.doc('alice')?.pushEnabled).toBe(false);
  });
});

describe('push subscription projection', () => {
  const keys = { p256dh: 'BKey', auth: 'secret' };
  it("keeps each subscription under its id with its responder, and forgets it when removed", async () => {
    const added = recorded('user-alice', 'im.user.push_subscribed', { data: { id: 'ps_1', endpoint: 'https://push.example/1', keys, clearance: 'internal' } });
    const docs = await new Documents(pushSubscriptionProjection).deliver(added, recorded('user-bob', 'im.user.push_subscribed', { data: { id: 'ps_2', endpoint: 'https://push.example/2', keys } }));
    expect(docs.doc('ps_1')).toEqual({ id: 'ps_1', userId: 'alice', endpoint: 'https://push.example/1', keys, clearance: 'internal', createdAt: added.event.time });
    await docs.deliver(recorded('user-alice', 'im.user.push_unsubscribed', { data: { id: 'ps_1', reason: 'gone' } }));
    expect(docs.doc('ps_1')).toBeUndefined();
    expect(docs.doc('ps_2')?.userId).toBe('bob');
    expect(pushSubscriptionProjection.keyOf(recorded('user-alice', 'im.user.preferences_updated', { data: {} }))).toBeUndefined();
  });
});

describe('probe projection', () => {
  it('keeps each diagnostics probe by its event id, and nothing else', async () => {
    const probe = recorded('diagnostics-1', 'im.diagnostics.probe');
    const docs = await new Documents(probeProjection).deliver(probe, recorded('diagnostics-2', 'im.other'), recorded(stream, 'im.diagnostics.probe'));
    expect(Object.fromEntries([...docs.stored].map(([key, { doc }]) => [key, doc]))).toEqual({ [probe.event.id]: { id: probe.event.id, time: probe.event.time } });
  });

  it('writes the same document when the probe is delivered again (at-least-once)', async () => {
    const probe = recorded('diagnostics-1', 'im.diagnostics.probe');
    const docs = await new Documents(probeProjection).deliver(probe);
    const first = docs.doc(probe.event.id);
    await docs.deliver(probe);
    expect(docs.doc(probe.event.id)).toEqual(first);
    expect(probeProjection.evolve(first, probe)).toBe(first);
  });
});

describe('integration key projection', () => {
  const created = (id: string) =>
    recorded('integration-keys', 'im.integration_key.created', { 'im.actor': 'ops-admin', data: { id, name: 'alertmanager', roles: ['timeline.writer'], key_hash: 'ab'.repeat(32) } });
  const revoked = (id: string) => recorded('integration-keys', 'im.integration_key.revoked', { 'im.actor': 'root', data: { id } });

  it('keeps each key from its creation, and marks it revoked, by whom and when', async () => {
    const a = created('00000000000000aa');
    const revoke = revoked('00000000000000aa');
    const docs = await new Documents(integrationKeyProjection).deliver(a, created('00000000000000bb'), revoke);
    expect(docs.doc('00000000000000aa')).toEqual({
      id: '00000000000000aa', name: 'alertmanager', roles: ['timeline.writer'], keyHash: 'ab'.repeat(32),
      createdAt: a.event.time, createdBy: 'ops-admin', revokedAt: revoke.event.time, revokedBy: 'root', serviceId: null,
    });
    expect(docs.doc('00000000000000bb')?.revokedAt).toBeNull();
  });

  it('keeps the service a key names', async () => {
    const named = recorded('integration-keys', 'im.integration_key.created', { data: { id: '00000000000000dd', name: 'grafana', roles: ['timeline.writer'], key_hash: 'ab'.repeat(32), service_id: 'svc-1' } });
    expect((await new Documents(integrationKeyProjection).deliver(named)).doc('00000000000000dd')?.serviceId).toBe('svc-1');
  });

  it('ignores other streams and event types, and a revoke of a key it never saw', async () => {
    expect(integrationKeyProjection.keyOf(recorded(stream, 'im.integration_key.created', { data: { id: 'x' } }))).toBeUndefined();
    expect(integrationKeyProjection.keyOf(recorded('integration-keys', 'im.other', { data: { id: 'x' } }))).toBeUndefined();
    expect((await new Documents(integrationKeyProjection).deliver(revoked('00000000000000cc'))).doc('00000000000000cc')).toBeUndefined();
  });

  it('keeps a key revoked when its creation is delivered again (at-least-once)', async () => {
    const a = created('00000000000000aa');
    const docs = await new Documents(integrationKeyProjection).deliver(a, revoked('00000000000000aa'));
    await docs.deliver(a);
    expect(docs.doc('00000000000000aa')?.revokedAt).not.toBeNull();
  });
});

describe('integration key history projection', () => {
  const created = recorded('integration-keys', 'im.integration_key.created', { 'im.actor': 'ops-admin', data: { id: '00000000000000aa', name: 'alertmanager', roles: ['timeline.writer'], key_hash: 'ab'.repeat(32) } });
  const revoked = recorded('integration-keys', 'im.integration_key.revoked', { 'im.actor': 'root', data: { id: '00000000000000aa' } });

  it('keeps each event of the stream by its log position, as written but for the hash, with when the ledger stored it', async () => {
    const docs = await new Documents(integrationKeyHistoryProjection).deliver(created, declare(), revoked);
    expect([...docs.stored.keys()]).toEqual([String(created.position), String(revoked.position)]);
    const { key_hash: _hash, ...shown } = created.event.data!;
    expect(docs.doc(String(created.position))).toEqual({ event: { ...created.event, data: shown }, recordedAt: created.recordedAt });
    expect(docs.doc(String(revoked.position))).toEqual({ event: revoked.event, recordedAt: revoked.recordedAt });
    expect(JSON.stringify([...docs.stored.values()].map(({ doc }) => doc))).not.toContain('key_hash');
  });

  it('writes the same document when an event is delivered again (at-least-once)', async () => {
    const docs = await new Documents(integrationKeyHistoryProjection).deliver(created);
    const first = docs.doc(String(created.position));
    await docs.deliver(created);
    expect(docs.doc(String(created.position))).toEqual(first);
    expect(integrationKeyHistoryProjection.evolve(first, created)).toBe(first);
  });
});

describe('on-call projections', () => {
  const oncall = (type: string, data: Record<string, unknown>) => recorded('oncall', type, { data });
  const layers = [{ name: 'daily', start: '2026-03-27T08:00:00.000Z', rotation: { every: 1, unit: 'days' }, users: ['ann'] }];

  it('keeps a service from its creation through updates (keeping when it was created) until it is deleted', async () => {
    const created = oncall('im.oncall.service_created', { id: 's1', name: 'Checkout', description: null, escalation_policy_id: null });
    const docs = await new Documents(serviceProjection).deliver(created, oncall('im.oncall.service_updated', { id: 's1', name: 'Payments', description: 'Pays', escalation_policy_id: 'p1' }));
    expect(docs.doc('s1')).toEqual({ id: 's1', name: 'Payments', description: 'Pays', escalationPolicyId: 'p1', createdAt: created.event.time });
    await docs.deliver(oncall('im.oncall.service_deleted', { id: 's1' }));
    expect(docs.doc('s1')).toBeUndefined();
  });

  it('keeps an escalation policy until it is deleted', async () => {
    const steps = [{ delay_seconds: 60, targets: [{ type: 'user', id: 'ann' }] }];
    const created = oncall('im.oncall.policy_created', { id: 'p1', name: 'Primary', steps, repeat: 1 });
    const docs = await new Documents(escalationPolicyProjection).deliver(created);
    expect(docs.doc('p1')).toEqual({ id: 'p1', name: 'Primary', steps, repeat: 1, createdAt: created.event.time });
    await docs.deliver(oncall('im.oncall.policy_deleted', { id: 'p1' }));
    expect(docs.doc('p1')).toBeUndefined();
  });

  it('keeps a schedule with its overrides in creation order; an update keeps them, a deleted one goes', async () => {
    const created = oncall('im.oncall.schedule_created', { id: 'sc1', name: 'Primary', time_zone: 'Europe/Berlin', layers });
    const first = oncall('im.oncall.override_created', { schedule_id: 'sc1', id: 'o1', user: 'bob', start: '2026-04-01T08:00:00.000Z', end: '2026-04-01T10:00:00.000Z' });
    const second = oncall('im.oncall.override_created', { schedule_id: 'sc1', id: 'o2', user: 'cy', start: '2026-03-01T08:00:00.000Z', end: '2026-03-01T10:00:00.000Z' });
    const docs = await new Documents(scheduleProjection).deliver(created, first, second, oncall('im.oncall.schedule_updated', { id: 'sc1', name: 'Renamed', time_zone: 'UTC', layers: [] }));
    expect(docs.doc('sc1')).toEqual({
      id: 'sc1', name: 'Renamed', timeZone: 'UTC', layers: [], createdAt: created.event.time,
      overrides: [
        { id: 'o1', user: 'bob', start: '2026-04-01T08:00:00.000Z', end: '2026-04-01T10:00:00.000Z', createdAt: first.event.time },
        { id: 'o2', user: 'cy', start: '2026-03-01T08:00:00.000Z', end: '2026-03-01T10:00:00.000Z', createdAt: second.event.time },
      ],
    });
    await docs.deliver(oncall('im.oncall.override_deleted', { schedule_id: 'sc1', id: 'o1' }));
    expect(docs.doc('sc1')?.overrides.map((o) => o.id)).toEqual(['o2']);
    await docs.deliver(oncall('im.oncall.schedule_deleted', { id: 'sc1' }));
    expect(docs.doc('sc1')).toBeUndefined();
  });

  it('reads only its own types of the oncall stream', () => {
    expect(serviceProjection.keyOf(oncall('im.oncall.policy_created', { id: 'p1' }))).toBeUndefined();
    expect(scheduleProjection.keyOf(oncall('im.oncall.override_created', { schedule_id: 'sc1', id: 'o1' }))).toBe('sc1');
    expect(scheduleProjection.keyOf(recorded('webhooks', 'im.oncall.schedule_created', { data: { id: 'sc1' } }))).toBeUndefined();
  });

  it('keeps a heartbeat with its last ping and the alert of a missed deadline the service recorded, until it is deleted', async () => {
    const created = oncall('im.oncall.heartbeat_created', { id: 'h1', name: 'Watchdog', interval_seconds: 60, service_id: 's1' });
    const alert = (type: string, extra: Partial<CloudEvent> = {}) =>
      recorded('incident-i1', type, { 'im.fingerprint': 'heartbeat:h1', 'im.actor': 'system:heartbeat', time: '2026-11-22T11:00:00.000Z', ...extra });
    const docs = await new Documents(heartbeatProjection).deliver(created);
    expect(docs.doc('h1')).toEqual({ id: 'h1', name: 'Watchdog', intervalSeconds: 60, serviceId: 's1', createdAt: created.event.time, lastPingAt: null, firingSince: null });
    const ping = recorded('heartbeat-h1', 'im.heartbeat.ping', { data: {} });
    await docs.deliver(ping, alert('im.alert.trigger'));
    expect(docs.doc('h1')).toMatchObject({ lastPingAt: ping.event.time, firingSince: '2026-11-22T11:00:00.000Z' });
    // The same fingerprint sent by anyone else is not the heartbeat's alert.
    expect(heartbeatProjection.keyOf(alert('im.alert.resolve', { 'im.actor': 'integration:k1' }))).toBeUndefined();
    await docs.deliver(alert('im.alert.resolve'));
    expect(docs.doc('h1')?.firingSince).toBeNull();
    await docs.deliver(oncall('im.oncall.heartbeat_deleted', { id: 'h1' }));
    expect(docs.doc('h1')).toBeUndefined();
    expect(heartbeatProjection.keyOf(oncall('im.oncall.service_created', { id: 's1' }))).toBeUndefined();
  });
});

describe('incident metrics projection', () => {
  it('keeps the facts the response metrics need, with the times the ledger recorded: the first acknowledgement and resolution, the first service', async () => {
    const ledger = [
      declare(),
      recorded(stream, 'im.incident.service_assigned', { data: { service_id: 'svc-1', escalation_policy_id: null } }),
      recorded(stream, 'im.incident.service_assigned', { data: { service_id: 'svc-2', escalation_policy_id: null } }),
      recorded(stream, 'im.incident.ack'),
      recorded(stream, 'im.incident.ack'),
      recorded(stream, 'im.paging.escalate', { data: { from_step: 1, to_step: 2, reason: 'manual' } }),
      recorded(stream, 'im.incident.severity', { data: { severity: 'SEV-1' } }),
      recorded(stream, 'im.alert.trigger', { 'im.fingerprint': 'db-1' }),
      recorded(stream, 'im.alert.trigger', { 'im.fingerprint': 'db-1' }),
      recorded(stream, 'im.incident.resolve'),
      recorded(stream, 'im.incident.resolve'),
    ];
    const [declared, , , acked] = ledger;
    const resolved = ledger[9];
    const docs = await new Documents(incidentMetricsProjection).deliver(...ledger);
    expect(docs.doc(INCIDENT)).toEqual({
      id: INCIDENT,
      declaredAt: declared.recordedAt,
      severity: 'SEV-1',
      serviceId: 'svc-1',
      visibility: 'restricted',
      outcome: 'counted',
      acknowledgedAt: acked.recordedAt,
      resolvedAt: resolved.recordedAt,
      escalated: true,
      alerts: 2,
      status: 'resolved',
    });
  });

  it('counts the alert that opened an incident, with its severity or SEV-3', async () => {
    const docs = await new Documents(incidentMetricsProjection).deliver(recorded(stream, 'im.alert.trigger', { 'im.fingerprint': 'db-1', data: { title: 'Disk' } }));
    expect(docs.doc(INCIDENT)).toMatchObject({ severity: 'SEV-3', alerts: 1, visibility: null, serviceId: null });
    const other = 'incident-INC-0000000b';
    await docs.deliver(recorded(other, 'im.alert.trigger', { data: { severity: 'SEV-1' } }));
    expect(docs.doc('INC-0000000b')).toMatchObject({ severity: 'SEV-1', alerts: 1 });
  });

  it('marks a canceled or duplicate incident so, for good', async () => {
    const docs = await new Documents(incidentMetricsProjection).deliver(declare(), recorded(stream, 'im.incident.ack'), recorded(stream, 'im.incident.cancel'));
    expect(docs.doc(INCIDENT)?.outcome).toBe('canceled');
    const other = 'incident-INC-0000000b';
    await docs.deliver(recorded(other, 'im.incident.declare', { data: { title: 'Twin', severity: 'SEV-2' } }), recorded(other, 'im.incident.duplicate', { data: { of: INCIDENT } }));
    expect(docs.doc('INC-0000000b')?.outcome).toBe('duplicate');
  });

  it('takes a move only where the lifecycle allows it, as the incident read model does, for a ledger written before cancel and duplicate were moves', async () => {
    const resolvedFirst = [declare(), recorded(stream, 'im.incident.resolve')];
    const later = [recorded(stream, 'im.incident.ack'), recorded(stream, 'im.incident.cancel'), recorded(stream, 'im.incident.duplicate', { data: { of: 'INC-00000001' } })];
    const metrics = await new Documents(incidentMetricsProjection).deliver(...resolvedFirst, ...later);
    const incidents = await new Documents(incidentProjection).deliver(...resolvedFirst, ...later);
    expect(incidents.doc(INCIDENT)?.status).toBe('resolved');
    expect(metrics.doc(INCIDENT)).toMatchObject({ outcome: 'counted', acknowledgedAt: null, resolvedAt: resolvedFirst[1].recordedAt, status: 'resolved' });
  });

  it('has no key for the events that change no fact, so catching up loads and writes nothing for them', () => {
    for (const type of ['im.incident.note', 'im.incident.role_assigned', 'im.paging.page', 'im.paging.exhausted', 'im.alert.resolve']) {
      expect(incidentMetricsProjection.keyOf(recorded(stream, type))).toBeUndefined();
    }
    expect(incidentMetricsProjection.keyOf(recorded('fingerprint-disk', 'im.alert.trigger'))).toBeUndefined();
    expect(incidentMetricsProjection.keyOf(recorded(stream, 'im.incident.ack'))).toBe(INCIDENT);
  });

  it('writes nothing for an event that changes no fact, nor for one delivered again', async () => {
    const declared = declare();
    const acked = recorded(stream, 'im.incident.ack');
    const docs = await new Documents(incidentMetricsProjection).deliver(declared, acked);
    await docs.deliver(recorded(stream, 'im.incident.ack'), recorded(stream, 'im.incident.severity', { data: { severity: 'SEV-2' } }));
    expect(docs.lastWrites).toEqual([]);
    await docs.deliver(declared, acked);
    expect(docs.lastWrites).toEqual([]);
    expect(await new Documents(incidentMetricsProjection).deliver(recorded(stream, 'im.incident.ack')).then((d) => d.doc(INCIDENT))).toBeUndefined();
  });

  it('agrees with the incident read model on any stream, moves the lifecycle refuses included (older ledgers hold some)', async () => {
    const moves = ['im.incident.ack', 'im.incident.mitigate', 'im.incident.resolve', 'im.incident.close', 'im.incident.cancel', 'im.incident.duplicate', 'im.incident.severity', 'im.incident.note', 'im.alert.trigger', 'im.paging.escalate'];
    const anEvent = fc.record({ type: fc.constantFrom(...moves), severity: fc.constantFrom(...SEVERITIES) });
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(anEvent, { maxLength: 25 }), async (byAlert, drawn) => {
        const incidents = new Documents(incidentProjection);
        const metrics = new Documents(incidentMetricsProjection);
        const opening = byAlert ? recorded(stream, 'im.alert.trigger', { 'im.fingerprint': 'fp' }) : declare();
        const ledger = [opening];
        const taken = new Set<RecordedEvent>();
        await incidents.deliver(opening);
        for (const { type, severity } of drawn) {
          const status = incidents.doc(INCIDENT)!.status;
          const event = recorded(stream, type, { data: type === 'im.incident.duplicate' ? { of: 'INC-00000001' } : { severity }, 'im.fingerprint': 'fp' });
          ledger.push(event);
          await incidents.deliver(event);
          // The moves the incident took: a refused or repeated one leaves its status.
          if (incidents.doc(INCIDENT)!.status !== status) taken.add(event);
        }
        await metrics.deliver(...ledger);
        const incident = incidents.doc(INCIDENT)!;
        const firstOf = (type: string) => ledger.find((event) => event.event.type === type && taken.has(event))?.recordedAt ?? null;
        expect(metrics.doc(INCIDENT)).toEqual({
          id: INCIDENT,
          declaredAt: incident.createdAt,
          severity: incident.severity,
          serviceId: null,
          visibility: incident.visibility ?? null,
          outcome: incident.status === 'canceled' ? 'canceled' : incident.status === 'duplicate' ? 'duplicate' : 'counted',
          acknowledgedAt: firstOf('im.incident.ack'),
          resolvedAt: firstOf('im.incident.resolve'),
          escalated: ledger.some((event) => event.event.type === 'im.paging.escalate'),
          alerts: ledger.filter((event) => event.event.type === 'im.alert.trigger').length,
          status: incident.status,
        });
      }),
    );
  });
});
