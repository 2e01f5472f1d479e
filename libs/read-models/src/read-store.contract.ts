import type { Incident, Severity, Status } from '@im/incidents';
import type { ReadStore } from './read-store';
import type { CloudEvent } from '@im/cloudevents';
import type { RecordedEvent } from '@im/event-store';
import { incidentProjection } from './incidents/incident.projection';
import { timelineProjection, toTimelineEntry, toTimelineRecord } from './timeline/timeline.projection';
import { unredactedViewJson } from './timeline/timeline-event.view';
import { assignmentProjection } from './assignments/assignment.projection';
import { preferencesProjection } from './preferences/preferences.projection';
import { integrationKeyProjection, type IntegrationKeyRecord } from './integration-keys/integration-key.projection';
import { integrationKeyHistoryProjection, type IntegrationKeyHistoryEntry } from './integration-keys/integration-key-history.projection';
import type { TimelineQuery } from './timeline/timeline-queries.port';
import { ReadModelCatchingUpError } from './projection-progress';
import { webhookProjection, type WebhookRecord } from './webhooks/webhook.projection';
import { pushSubscriptionProjection, type PushSubscriptionRecord } from './push-subscriptions/push-subscription.projection';
import { type HeartbeatRecord, heartbeatProjection } from './oncall/heartbeat.projection';
import { escalationPolicyProjection, type ScheduleRecord, scheduleProjection, type ServiceRecord, serviceProjection } from './oncall/oncall.projections';

export interface ReadStoreHarness {
  open(): Promise<ReadStore>;
  dispose(): Promise<void>;
}

const incident = (n: number, status: Status = 'open', severity: Severity = 'SEV-2'): Incident => {
  const createdAt = new Date(Date.UTC(2026, 10, 22, 0, 0, n)).toISOString();
  return {
    id: `INC-${n.toString(16).padStart(8, '0')}`,
    title: `incident ${n}`,
    severity,
    status,
    createdAt,
    updatedAt: createdAt,
  };
};

let position = 0n;
/** A recorded incident event as the timeline projection receives it. */
export function recorded(incidentId: string, minute: number, type: string, extra: Partial<CloudEvent> = {}): RecordedEvent {
  position += 1n;
  return {
    streamId: `incident-${incidentId}`,
    revision: 0n,
    position,
    recordedAt: '2026-11-22T12:00:00.000Z',
    event: {
      specversion: '1.0',
      id: `evt-${position}`,
      source: 'im://contract',
      type,
      time: new Date(Date.UTC(2026, 10, 22, 10, minute)).toISOString(),
      subject: `incident/${incidentId}`,
      ...extra,
    },
  };
}

/** The behaviour every ReadStore adapter must show. */
export function describeReadStoreContract(adapter: string, makeHarness: () => ReadStoreHarness): void {
  describe(`ReadStore contract: ${adapter}`, () => {
    let harness: ReadStoreHarness;
    let store: ReadStore;
    const name = incidentProjection.name;

    beforeEach(async () => {
      harness = makeHarness();
      store = await harness.open();
      await store.reset(name);
    });

    afterEach(async () => {
      await store.close();
      await harness.dispose();
    });

    const save = (incidents: Incident[], position: bigint) =>
      store.commit(
        name,
        incidents.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })),
        position,
      );

    it('starts a projection at checkpoint 0 with no documents', async () => {
      expect(await store.checkpoint(name)).toBe(0n);
      expect((await store.load(name, ['INC-00000001'])).size).toBe(0);
      expect(await store.incidents.findById('INC-00000001')).toBeUndefined();
      expect(await store.incidents.exists('INC-00000001')).toBe(false);
    });

    it('commits documents together with the checkpoint and loads them back with their positions', async () => {
      const one = incident(1);
      await store.commit(name, [{ key: one.id, doc: one, position: 7n }], 9n);
      expect(await store.checkpoint(name)).toBe(9n);
      const loaded = await store.load<Incident>(name, [one.id, 'INC-ffffffff']);
      expect([...loaded.keys()]).toEqual([one.id]);
      expect(loaded.get(one.id)).toEqual({ doc: one, position: 7n });
      expect(await store.incidents.findById(one.id)).toEqual(one);
      expect(await store.incidents.exists(one.id)).toBe(true);
    });

    it('commits several projections together, each with its own checkpoint', async () => {
      await store.reset(assignmentProjection.name);
      const one = incident(1);
      await store.commitBatch([
        { projection: name, writes: [{ key: one.id, doc: one, position: 3n }], position: 5n },
        { projection: assignmentProjection.name, writes: [{ key: `${one.id}/IC`, doc: { incidentId: one.id, role: 'IC', userId: 'ann' }, position: 4n }], position: 5n },
      ]);
      expect(await store.checkpoint(name)).toBe(5n);
      expect(await store.checkpoint(assignmentProjection.name)).toBe(5n);
      expect(await store.incidents.findById(one.id)).toEqual(one);
      expect((await store.incidents.listForUser('ann', { limit: 5 })).map((i) => i.id)).toEqual([one.id]);
    });

    it('replaces a document, and deletes one written as undefined', async () => {
      const one = incident(1);
      await save([one], 1n);
      await store.commit(name, [{ key: one.id, doc: { ...one, status: 'resolved' }, position: 2n }], 2n);
      expect((await store.incidents.findById(one.id))?.status).toBe('resolved');
      await store.commit(name, [{ key: one.id, doc: undefined, position: 3n }], 3n);
      expect(await store.incidents.findById(one.id)).toBeUndefined();
    });

    it('lists newest first, filters by status and severity, and pages by keyset', async () => {
      const all = [
        incident(1, 'open', 'SEV-1'),
        incident(2, 'acknowledged', 'SEV-2'),
        incident(3, 'resolved', 'SEV-1'),
        incident(4, 'open', 'SEV-3'),
        incident(5, 'closed', 'SEV-1'),
      ];
      await save(all, 5n);
      const ids = (rows: Incident[]) => rows.map((r) => r.title);

      expect(ids(await store.incidents.list({ limit: 10 }))).toEqual([5, 4, 3, 2, 1].map((n) => `incident ${n}`));
      expect(ids(await store.incidents.list({ limit: 10, statuses: ['open', 'resolved'] }))).toEqual([
        'incident 4',
        'incident 3',
        'incident 1',
      ]);
      expect(ids(await store.incidents.list({ limit: 10, severities: ['SEV-1'], statuses: ['open', 'closed'] }))).toEqual([
        'incident 5',
        'incident 1',
      ]);

      const first = await store.incidents.list({ limit: 2 });
      const last = first[first.length - 1];
      const second = await store.incidents.list({ limit: 2, after: { createdAt: last.createdAt, id: last.id } });
      expect(ids(first)).toEqual(['incident 5', 'incident 4']);
      expect(ids(second)).toEqual(['incident 3', 'incident 2']);
    });

    it('orders incidents created in the same millisecond by id, so no page skips one', async () => {
      const same = [1, 2, 3].map((n) => ({ ...incident(n), createdAt: '2026-11-22T00:00:00.000Z' }));
      await save(same, 3n);
      const first = await store.incidents.list({ limit: 2 });
      const rest = await store.incidents.list({ limit: 2, after: { createdAt: first[1].createdAt, id: first[1].id } });
      expect([...first, ...rest].map((r) => r.id)).toEqual(same.map((r) => r.id).reverse());
    });

    it("lists a user's incidents (any role) newest first, filtered, and finds several by id", async () => {
      const all = [incident(1, 'open', 'SEV-1'), incident(2, 'resolved', 'SEV-2'), incident(3, 'open', 'SEV-3'), incident(4, 'open', 'SEV-1')];
      await save(all, 4n);
      await store.reset(assignmentProjection.name);
      const assign = (n: number, role: string, userId: string) => ({
        key: `${incident(n).id}/${role}`,
        doc: { incidentId: incident(n).id, role, userId },
        position: 1n,
      });
      await store.commit(assignmentProjection.name, [assign(1, 'IC', 'alice'), assign(2, 'OPS', 'alice'), assign(3, 'IC', 'bob'), assign(4, 'COMMS', 'alice'), assign(4, 'IC', 'alice')], 4n);
      const titles = (rows: Incident[]) => rows.map((r) => r.title);
      expect(titles(await store.incidents.listForUser('alice', { limit: 10 }))).toEqual(['incident 4', 'incident 2', 'incident 1']);
      expect(titles(await store.incidents.listForUser('alice', { limit: 10, statuses: ['open'], severities: ['SEV-1'] }))).toEqual(['incident 4', 'incident 1']);
      expect(titles(await store.incidents.listForUser('alice', { limit: 1 }))).toEqual(['incident 4']);
      expect(await store.incidents.listForUser('nobody', { limit: 10 })).toEqual([]);
      const many = await store.incidents.findMany([incident(3).id, incident(1).id, 'INC-ffffffff']);
      expect([...many.keys()].sort()).toEqual([incident(1).id, incident(3).id]);
    });

    it('leaves out incidents declared with a visibility the query does not cover, in the query itself', async () => {
      const levels = [undefined, 'confidential', 'public', 'restricted', undefined, 'internal'];
      const all = levels.map((visibility, i) => (visibility ? { ...incident(i + 1), visibility } : incident(i + 1)));
      await save(all, 6n);
      await store.reset(assignmentProjection.name);
      await store.commit(assignmentProjection.name, all.map((one) => ({ key: `${one.id}/IC`, doc: { incidentId: one.id, role: 'IC', userId: 'ann' }, position: 1n })), 6n);
      const titles = (rows: Incident[]) => rows.map((r) => r.title);
      const internal = ['public', 'internal'];

      expect(titles(await store.incidents.list({ limit: 10, visibleLevels: internal }))).toEqual(['incident 6', 'incident 5', 'incident 3', 'incident 1']);
      expect(titles(await store.incidents.list({ limit: 10, visibleLevels: [] }))).toEqual(['incident 5', 'incident 1']);
      expect(titles(await store.incidents.list({ limit: 10 }))).toHaveLength(6);
      expect(titles(await store.incidents.listForUser('ann', { limit: 10, visibleLevels: internal }))).toEqual(['incident 6', 'incident 5', 'incident 3', 'incident 1']);
      // A page is full of visible incidents, and the next page starts after the last one shown.
      const first = await store.incidents.list({ limit: 2, visibleLevels: ['public'] });
      expect(titles(first)).toEqual(['incident 5', 'incident 3']);
      const rest = await store.incidents.list({ limit: 2, visibleLevels: ['public'], after: { createdAt: first[1].createdAt, id: first[1].id } });
      expect(titles(rest)).toEqual(['incident 1']);
    });

    it('counts a service’s incidents by status, and lists the open ones still paging by id, page after page', async () => {
      const of = (n: number, status: Status, serviceId: string, policyId: string | null, exhausted = false): Incident => ({
        ...incident(n, status),
        escalation: { serviceId, policyId, step: 1, round: 1, pagedAt: incident(n).createdAt, paged: ['ann'], exhausted },
      });
      await save(
        [of(1, 'open', 'svc-a', 'pol'), of(2, 'acknowledged', 'svc-a', 'pol'), of(3, 'resolved', 'svc-a', 'pol'), of(4, 'open', 'svc-b', null), of(5, 'open', 'svc-b', 'pol', true), of(6, 'open', 'svc-b', 'pol'), incident(7)],
        7n,
      );
      expect(await store.incidents.countOfService('svc-a', ['open', 'acknowledged', 'mitigated'])).toBe(2);
      expect(await store.incidents.countOfService('svc-b', ['open'])).toBe(3);
      expect(await store.incidents.countOfService('svc-none', ['open'])).toBe(0);
      const first = await store.incidents.listPaging({ limit: 1 });
      expect(first.map((one) => one.title)).toEqual(['incident 1']);
      expect((await store.incidents.listPaging({ limit: 10, after: first[0].id })).map((one) => one.title)).toEqual(['incident 6']);
    });

    it('stores and finds notification preferences per user', async () => {
      await store.reset(preferencesProjection.name);
      expect(await store.preferences.findByUser('alice')).toBeUndefined();
      const prefs = { userId: 'alice', pushEnabled: true, severityFilter: ['SEV-1'], quietHours: null, channels: ['push'], updatedAt: 'now' };
      await store.commit(preferencesProjection.name, [{ key: 'alice', doc: prefs, position: 1n }], 1n);
      expect(await store.preferences.findByUser('alice')).toEqual(prefs);
    });

    it('finds an integration key by id, revoked or not, and lists keys oldest first, ties by id', async () => {
      await store.reset(integrationKeyProjection.name);
      const key = (id: string, createdAt: string, revokedAt: string | null = null): IntegrationKeyRecord => ({
        id, name: `key ${id}`, roles: ['timeline.writer'], keyHash: 'ab'.repeat(32), createdAt, createdBy: 'admin', revokedAt, revokedBy: revokedAt && 'admin',
      });
      expect(await store.integrationKeys.findById('00000000000000b1')).toBeUndefined();
      expect(await store.integrationKeys.list()).toEqual([]);
      const keys = [key('00000000000000b2', '2026-11-22T10:00:00.000Z'), key('00000000000000b1', '2026-11-22T10:00:00.000Z', '2026-11-22T11:00:00.000Z'), key('00000000000000a0', '2026-11-22T12:00:00.000Z')];
      await store.commit(integrationKeyProjection.name, keys.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })), 3n);
      expect(await store.integrationKeys.findById('00000000000000b1')).toEqual(keys[1]);
      expect((await store.integrationKeys.list()).map((k) => k.id)).toEqual(['00000000000000b1', '00000000000000b2', '00000000000000a0']);
    });

    it('finds on-call services, policies and schedules by id and lists each oldest first, ties by id; a deleted one is gone', async () => {
      await Promise.all([serviceProjection, escalationPolicyProjection, scheduleProjection].map(({ name }) => store.reset(name)));
      const service = (id: string, createdAt: string): ServiceRecord => ({ id, name: `service ${id}`, description: null, escalationPolicyId: null, createdAt });
      const services = [service('s2', '2026-11-22T10:00:00.000Z'), service('s1', '2026-11-22T10:00:00.000Z'), service('s0', '2026-11-22T12:00:00.000Z')];
      expect(await store.oncall.services.list()).toEqual([]);
      await store.commit(serviceProjection.name, services.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })), 3n);
      expect(await store.oncall.services.findById('s1')).toEqual(services[1]);
      expect((await store.oncall.services.list()).map((s) => s.id)).toEqual(['s1', 's2', 's0']);
      await store.commit(serviceProjection.name, [{ key: 's1', doc: undefined, position: 4n }], 4n);
      expect(await store.oncall.services.findById('s1')).toBeUndefined();
      expect((await store.oncall.services.list()).map((s) => s.id)).toEqual(['s2', 's0']);

      const policy = { id: 'p1', name: 'Primary', steps: [{ delay_seconds: 60, targets: [{ type: 'schedule' as const, id: 'sc1' }] }], repeat: 2, createdAt: '2026-11-22T10:00:00.000Z' };
      await store.commit(escalationPolicyProjection.name, [{ key: 'p1', doc: policy, position: 5n }], 5n);
      expect(await store.oncall.escalationPolicies.findById('p1')).toEqual(policy);
      expect(await store.oncall.escalationPolicies.list()).toEqual([policy]);

      const schedule: ScheduleRecord = {
        id: 'sc1', name: 'Primary', timeZone: 'Europe/Berlin', createdAt: '2026-11-22T10:00:00.000Z',
        layers: [{ name: 'daily', start: '2026-03-27T08:00:00.000Z', rotation: { every: 1, unit: 'days' }, users: ['ann', 'bob'], restrictions: [{ days: ['mon'], from: '09:00', to: '17:00' }] }],
        overrides: [{ id: 'o1', user: 'cy', start: '2026-04-01T08:00:00.000Z', end: '2026-04-01T10:00:00.000Z', createdAt: '2026-11-22T10:05:00.000Z' }],
      };
      await store.commit(scheduleProjection.name, [{ key: 'sc1', doc: schedule, position: 6n }], 6n);
      expect(await store.oncall.schedules.findById('sc1')).toEqual(schedule);
      expect(await store.oncall.schedules.list()).toEqual([schedule]);
      expect(await store.oncall.schedules.findById('sc9')).toBeUndefined();
      // The version a caller keeps a compiled schedule by: the position of the last change, without the document.
      expect(await store.oncall.schedules.positionOf('sc1')).toBe(6n);
      await store.commit(scheduleProjection.name, [{ key: 'sc1', doc: { ...schedule, overrides: [] }, position: 9n }], 9n);
      expect(await store.oncall.schedules.positionOf('sc1')).toBe(9n);
      expect(await store.oncall.schedules.positionOf('sc9')).toBeUndefined();
      expect(await store.oncall.services.positionOf('s2')).toBe(1n);

      await store.reset(heartbeatProjection.name);
      const heartbeat: HeartbeatRecord = { id: 'h1', name: 'Watchdog', intervalSeconds: 60, serviceId: 's2', createdAt: '2026-11-22T10:00:00.000Z', lastPingAt: null, firingSince: null };
      await store.commit(heartbeatProjection.name, [{ key: 'h1', doc: heartbeat, position: 7n }], 7n);
      expect(await store.oncall.heartbeats.findById('h1')).toEqual(heartbeat);
      expect(await store.oncall.heartbeats.list()).toEqual([heartbeat]);
    });

    it('lists the integration key history in log order, however its keys and writes are ordered', async () => {
      await store.reset(integrationKeyHistoryProjection.name);
      expect(await store.integrationKeyHistory.list()).toEqual([]);
      const entry = (n: number, type: string): IntegrationKeyHistoryEntry => ({
        event: { specversion: '1.0', id: `evt-${n}`, source: 'im://contract', type, time: '2026-11-22T10:00:00.000Z', 'im.actor': 'admin', data: { id: '00000000000000b1' } },
        recordedAt: '2026-11-22T10:00:01.000Z',
      });
      // Positions 9, 10, 11 sort 10, 11, 9 as text; committed newest first.
      const writes = [[11, 'im.integration_key.revoked'], [10, 'im.integration_key.created'], [9, 'im.integration_key.created']] as const;
      await store.commit(integrationKeyHistoryProjection.name, writes.map(([n, type]) => ({ key: String(n), doc: entry(n, type), position: BigInt(n) })), 11n);
      expect(await store.integrationKeyHistory.list()).toEqual([entry(9, 'im.integration_key.created'), entry(10, 'im.integration_key.created'), entry(11, 'im.integration_key.revoked')]);
    });

    it('finds a webhook registration by id, lists them oldest first (ties by id), and forgets a removed one', async () => {
      await store.reset(webhookProjection.name);
      const hook = (id: string, createdAt: string, enabled = true): WebhookRecord => ({
        id, url: `https://hooks.example.com/${id}`, eventTypes: ['im.incident.*'], clearance: 'internal', dataAccess: [], description: null, enabled, createdAt, createdBy: 'admin',
      });
      expect(await store.webhooks.findById('wh_b')).toBeUndefined();
      expect(await store.webhooks.list()).toEqual([]);
      const hooks = [hook('wh_c', '2026-11-22T10:00:00.000Z'), hook('wh_b', '2026-11-22T10:00:00.000Z', false), hook('wh_a', '2026-11-22T12:00:00.000Z')];
      await store.commit(webhookProjection.name, hooks.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })), 3n);
      expect(await store.webhooks.findById('wh_b')).toEqual(hooks[1]);
      expect((await store.webhooks.list()).map((h) => h.id)).toEqual(['wh_b', 'wh_c', 'wh_a']);
      await store.commit(webhookProjection.name, [{ key: 'wh_c', doc: undefined, position: 4n }], 4n);
      expect(await store.webhooks.findById('wh_c')).toBeUndefined();
      expect((await store.webhooks.list()).map((h) => h.id)).toEqual(['wh_b', 'wh_a']);
    });

    it("lists a responder's push subscriptions oldest first, and no one else's", async () => {
      const sub = (id: string, userId: string, createdAt: string): PushSubscriptionRecord => ({
        id, userId, endpoint: `https://push.example/${id}`, keys: { p256dh: 'BK', auth: 'au' }, clearance: 'internal', createdAt,
      });
      const subs = [sub('ps_b', 'alice', '2026-11-22T11:00:00.000Z'), sub('ps_a', 'alice', '2026-11-22T10:00:00.000Z'), sub('ps_c', 'bob', '2026-11-22T09:00:00.000Z')];
      await store.commit(pushSubscriptionProjection.name, subs.map((doc, i) => ({ key: doc.id, doc, position: BigInt(i + 1) })), 3n);
      expect(await store.pushSubscriptions.listByUser('alice')).toEqual([subs[1], subs[0]]);
      await store.commit(pushSubscriptionProjection.name, [{ key: 'ps_a', doc: undefined, position: 4n }], 4n);
      expect((await store.pushSubscriptions.listByUser('alice')).map((s) => s.id)).toEqual(['ps_b']);
      expect(await store.pushSubscriptions.listByUser('carol')).toEqual([]);
    });

    it('reset drops the documents and the checkpoint', async () => {
      await save([incident(1)], 4n);
      await store.reset(name);
      expect(await store.checkpoint(name)).toBe(0n);
      expect(await store.incidents.list({ limit: 10 })).toEqual([]);
    });

    it('records projection faults with the checkpoint that passes them, keeps them across a reopen, and drops them on reset', async () => {
      await store.reset(timelineProjection.name);
      const fault = (projection: string, position: bigint, seen: string, error = 'RangeError: Invalid time value') => ({
        projection,
        position,
        eventId: `evt-${position}`,
        streamId: 'incident-INC-0000000a',
        error,
        firstSeen: seen,
        lastSeen: seen,
      });
      expect(await store.projectionFaults()).toEqual([]);
      await store.commitBatch([
        { projection: name, writes: [], position: 5n, faults: [fault(name, 3n, '2026-11-22T10:00:00.000Z')] },
        { projection: timelineProjection.name, writes: [], position: 5n, faults: [fault(timelineProjection.name, 4n, '2026-11-22T10:00:01.000Z')] },
      ]);
      expect(await store.checkpoint(name)).toBe(5n);
      // Recorded again (a replay): the first sighting stays, the error and the last sighting are the newest.
      await store.commitBatch([{ projection: name, writes: [], position: 5n, faults: [fault(name, 3n, '2026-11-22T11:00:00.000Z', 'TypeError: x')] }]);
      await store.close();
      store = await harness.open();
      expect(await store.projectionFaults()).toEqual([
        { ...fault(name, 3n, '2026-11-22T10:00:00.000Z', 'TypeError: x'), lastSeen: '2026-11-22T11:00:00.000Z' },
        fault(timelineProjection.name, 4n, '2026-11-22T10:00:01.000Z'),
      ]);
      await store.reset(timelineProjection.name);
      expect((await store.projectionFaults()).map((f) => f.projection)).toEqual([name]);
    });

    it('keeps documents and checkpoint across a reopen', async () => {
      await save([incident(1)], 4n);
      await store.close();
      store = await harness.open();
      expect(await store.checkpoint(name)).toBe(4n);
      expect(await store.incidents.findById(incident(1).id)).toEqual(incident(1));
    });
  });

  describe(`ReadStore contract (timeline): ${adapter}`, () => {
    let harness: ReadStoreHarness;
    let store: ReadStore;
    const A = 'INC-0000000a';
    const B = 'INC-0000000b';
    const events = [
      recorded(A, 1, 'im.incident.declare', { 'im.actor': 'alice', 'im.visibility': 'restricted', 'im.data_class': ['pii', 'phi'], data: { title: 'Disk full', severity: 'SEV-2' } }),
      recorded(A, 2, 'im.alert.trigger', { 'im.actor': 'prometheus', 'im.fingerprint': 'disk:db-1', 'im.correlation_key': 'db' }),
      recorded(B, 3, 'im.incident.declare', { 'im.actor': 'bob', 'im.correlation_key': 'db' }),
      recorded(A, 4, 'im.incident.ack', { 'im.actor': 'alice' }),
      recorded(A, 4, 'im.incident.note', { 'im.actor': 'bob', data: { content: 'same minute as the ack' } }),
      recorded(B, 5, 'im.alert.trigger', { 'im.fingerprint': 'disk:db-1' }),
      recorded(A, 6, 'im.paging.escalate', { 'im.actor': 'pager' }),
    ];
    const ids = (rows: { entry: { id: string } }[]) => rows.map((r) => r.entry.id);
    const idsOf = (...indexes: number[]) => indexes.map((i) => events[i].event.id);
    const list = (query: Partial<TimelineQuery>) => store.timeline.list({ order: 'asc', limit: 100, ...query });

    beforeAll(async () => {
      harness = makeHarness();
      store = await harness.open();
      await store.reset(timelineProjection.name);
      await store.commit(
        timelineProjection.name,
        events.map((e) => ({ key: String(e.position), doc: toTimelineRecord(e), position: e.position })),
        events[events.length - 1].position,
      );
    });
    afterAll(async () => {
      await store.close();
      await harness.dispose();
    });

    it('finds one event by its CloudEvent id, with the entry as projected', async () => {
      const row = await store.timeline.findByEventId(events[4].event.id);
      expect(row?.entry).toEqual(toTimelineEntry(toTimelineRecord(events[4])));
      expect(row?.position).toBe(events[4].position);
      expect(await store.timeline.findByEventId('nope')).toBeUndefined();
    });

    it('reads the policy\'s inputs and the unredacted view beside each document, as the entry gives them', async () => {
      const rows = [...(await list({})), (await store.timeline.findByEventId(events[0].event.id))!];
      expect(rows).toHaveLength(events.length + 1);
      for (const row of rows) {
        const entry = toTimelineEntry(toTimelineRecord(events.find((e) => e.position === row.position)!));
        expect({ incidentId: row.incidentId, eventTime: row.eventTime, visibility: row.visibility, dataClass: row.dataClass }).toEqual({
          incidentId: entry.incidentId,
          eventTime: entry.eventTime,
          visibility: entry.visibility,
          dataClass: entry.dataClass,
        });
        expect(row.viewJson).toBe(unredactedViewJson(entry));
        expect(row.entry).toEqual(entry);
      }
      expect(rows[0]).toMatchObject({ visibility: 'restricted', dataClass: ['pii', 'phi'] });
      expect(rows[1]).toMatchObject({ visibility: 'internal', dataClass: [] });
    });

    it("lists an incident's events oldest or newest first, ties broken by log position", async () => {
      expect(ids(await list({ incidentId: A }))).toEqual(idsOf(0, 1, 3, 4, 6));
      expect(ids(await list({ incidentId: A, order: 'desc' }))).toEqual(idsOf(6, 4, 3, 1, 0));
    });

    it('filters by exact type, type prefix, actor and inclusive time range', async () => {
      expect(ids(await list({ incidentId: A, type: { exact: 'im.incident.ack' } }))).toEqual(idsOf(3));
      expect(ids(await list({ incidentId: A, type: { prefix: 'im.incident.' } }))).toEqual(idsOf(0, 3, 4));
      expect(ids(await list({ actor: 'bob' }))).toEqual(idsOf(2, 4));
      expect(
        ids(await list({ incidentId: A, from: events[1].event.time, to: events[3].event.time })),
      ).toEqual(idsOf(1, 3, 4));
    });

    it('searches across incidents by correlation key and fingerprint', async () => {
      expect(ids(await list({ correlationKey: 'db' }))).toEqual(idsOf(1, 2));
      expect(ids(await list({ fingerprint: 'disk:db-1', order: 'desc' }))).toEqual(idsOf(5, 1));
    });

    it('pages by keyset in both directions without skipping or repeating', async () => {
      for (const order of ['asc', 'desc'] as const) {
        const seen: string[] = [];
        let after: TimelineQuery['after'];
        for (;;) {
          const page = await list({ incidentId: A, order, limit: 2, after });
          if (page.length === 0) break;
          seen.push(...ids(page));
          const last = page[page.length - 1];
          after = { eventTime: last.eventTime, position: last.position };
        }
        expect(seen).toEqual(ids(await list({ incidentId: A, order })));
      }
    });

    // Last: it empties the read model.
    it('a row listed before the read model was emptied (a rebuild) shows its own event or answers as a rebuild does', async () => {
      const [row] = await list({ incidentId: A });
      await store.reset(timelineProjection.name);
      const expected = toTimelineEntry(toTimelineRecord(events[0]));
      expect(row.viewJson).toBe(unredactedViewJson(expected));
      let entry: unknown;
      try {
        entry = row.entry;
      } catch (error) {
        expect(error).toBeInstanceOf(ReadModelCatchingUpError);
        return;
      }
      expect(entry).toEqual(expected);
    });
  });
}
