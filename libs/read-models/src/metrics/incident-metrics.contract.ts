import { factsAtOpening, type IncidentFacts } from '@im/incidents';
import type { RecordedEvent } from '@im/event-store';
import type { ReadStore } from '../read-store';
import type { ReadStoreHarness } from '../read-store.contract';
import { foldBatch } from '../projection-runner';
import { incidentMetricsProjection } from './incident-metrics.projection';

const facts = (id: string, declaredAt: string, over: Partial<IncidentFacts> = {}): IncidentFacts => ({
  ...factsAtOpening({ id, declaredAt, severity: 'SEV-2', visibility: null, alerts: 0 }),
  ...over,
});

const byId = (found: IncidentFacts[]) => [...found].sort((a, b) => (a.id < b.id ? -1 : 1));

/** The behaviour every IncidentMetricsQueries adapter must show, over the read store's harness. */
export function describeIncidentMetricsContract(adapter: string, makeHarness: () => ReadStoreHarness): void {
  describe(`IncidentMetricsQueries contract: ${adapter}`, () => {
    let harness: ReadStoreHarness;
    let store: ReadStore;
    const name = incidentMetricsProjection.name;
    let position = 0n;

    beforeEach(async () => {
      harness = makeHarness();
      store = await harness.open();
      await store.reset(name);
    });
    afterEach(async () => {
      await store.close();
      await harness.dispose();
    });

    const save = (docs: IncidentFacts[]) => {
      const writes = docs.map((doc) => ({ key: doc.id, doc, position: ++position }));
      return store.commit(name, writes, position);
    };
    const everyone = { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z', visibleLevels: ['internal', 'restricted'] };

    it('answers every fact as it was written', async () => {
      const written = [
        facts('INC-00000001', '2026-12-01T10:00:00.000Z', {
          severity: 'SEV-1',
          serviceId: 'svc-\u0000-\u0001-\u{1F525}',
          visibility: 'restricted',
          acknowledgedAt: '2026-12-01T10:00:30.123Z',
          resolvedAt: '2026-12-01T11:00:00.000Z',
          escalated: true,
          alerts: 2_000_000_000,
        }),
        facts('INC-00000002', '2026-12-01T10:00:00.000Z', { outcome: 'canceled', acknowledgedAt: '2026-12-01T10:01:00.000Z' }),
        facts('INC-00000003', '2026-12-02T00:00:00.000Z', { outcome: 'duplicate', severity: 'SEV-4', serviceId: 'svc-2' }),
      ];
      await save(written);
      expect(byId(await store.metrics.factsIn(everyone))).toEqual(written);
    });

    it('answers the facts as they are now: an incident written again is answered once, as last written', async () => {
      const declared = facts('INC-00000001', '2026-12-01T10:00:00.000Z', { serviceId: 'svc-1' });
      await save([declared]);
      const resolved = { ...declared, acknowledgedAt: '2026-12-01T10:05:00.000Z', resolvedAt: '2026-12-01T10:09:00.000Z', escalated: true, alerts: 3, severity: 'SEV-1' as const };
      await save([resolved]);
      expect(await store.metrics.factsIn(everyone)).toEqual([resolved]);
    });

    it('answers the incidents declared from `from` (included) to `to` (excluded), to the millisecond', async () => {
      await save([
        facts('INC-00000001', '2026-11-30T23:59:59.999Z'),
        facts('INC-00000002', '2026-12-01T00:00:00.000Z'),
        facts('INC-00000003', '2026-12-07T23:59:59.999Z'),
        facts('INC-00000004', '2026-12-08T00:00:00.000Z'),
      ]);
      const found = await store.metrics.factsIn({ ...everyone, from: '2026-12-01T00:00:00.000Z', to: '2026-12-08T00:00:00.000Z' });
      expect(byId(found).map(({ id }) => id)).toEqual(['INC-00000002', 'INC-00000003']);
      expect(await store.metrics.factsIn({ ...everyone, from: '2026-12-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' })).toEqual([]);
    });

    it('leaves out the incidents declared with a visibility the caller is not cleared for; those without one are always in', async () => {
      await save([
        facts('INC-00000001', '2026-12-01T10:00:00.000Z'),
        facts('INC-00000002', '2026-12-01T10:00:00.000Z', { visibility: 'internal' }),
        facts('INC-00000003', '2026-12-01T10:00:00.000Z', { visibility: 'restricted' }),
      ]);
      const ids = async (visibleLevels: string[]) => byId(await store.metrics.factsIn({ ...everyone, visibleLevels })).map(({ id }) => id);
      expect(await ids(['public', 'internal'])).toEqual(['INC-00000001', 'INC-00000002']);
      expect(await ids([])).toEqual(['INC-00000001']);
      expect(await ids(['internal', 'restricted'])).toEqual(['INC-00000001', 'INC-00000002', 'INC-00000003']);
    });

    it('answers the position of the latest change to the facts of an incident the caller may see, and 0 for none', async () => {
      expect(await store.metrics.lastChange(['internal'])).toBe(0n);
      await save([facts('INC-00000001', '2026-12-01T10:00:00.000Z'), facts('INC-00000002', '2026-12-01T10:00:00.000Z', { visibility: 'internal' })]);
      const seen = position;
      expect(await store.metrics.lastChange(['internal'])).toBe(seen);
      expect(await store.metrics.lastChange([])).toBe(seen - 1n);
      // A withheld incident's change moves only what its cleared callers are answered.
      await save([facts('INC-00000003', '2026-12-01T10:00:00.000Z', { visibility: 'restricted', acknowledgedAt: '2026-12-01T10:01:00.000Z' })]);
      expect(await store.metrics.lastChange(['internal'])).toBe(seen);
      expect(await store.metrics.lastChange(['internal', 'restricted'])).toBe(position);
      await save([facts('INC-00000001', '2026-12-01T10:00:00.000Z', { resolvedAt: '2026-12-01T11:00:00.000Z' })]);
      expect(await store.metrics.lastChange([])).toBe(position);
    });

    it('answers the facts the projection folds from an incident stream', async () => {
      const stream = 'incident-INC-0000abcd';
      const event = (type: string, recordedAt: string, extra: Record<string, unknown> = {}): RecordedEvent => ({
        streamId: stream,
        revision: 0n,
        position: ++position,
        recordedAt,
        event: { specversion: '1.0', id: `evt-${position}`, source: 'im://contract', type, time: recordedAt, subject: 'incident/INC-0000abcd', ...extra },
      });
      const fold = async (batch: RecordedEvent[]) => store.commitBatch([await foldBatch(store, incidentMetricsProjection, batch)]);
      await fold([
        event('im.incident.declare', '2026-12-01T10:00:00.000Z', { data: { title: 'Disk full', severity: 'SEV-2' }, 'im.visibility': 'internal' }),
        event('im.incident.service_assigned', '2026-12-01T10:00:00.000Z', { data: { service_id: 'svc-1', escalation_policy_id: null } }),
        event('im.incident.note', '2026-12-01T10:00:10.000Z', { data: { content: 'looking' } }),
      ]);
      await fold([event('im.incident.ack', '2026-12-01T10:00:42.500Z'), event('im.alert.trigger', '2026-12-01T10:01:00.000Z', { 'im.fingerprint': 'db' })]);
      expect(await store.metrics.factsIn(everyone)).toEqual([
        facts('INC-0000abcd', '2026-12-01T10:00:00.000Z', { serviceId: 'svc-1', visibility: 'internal', acknowledgedAt: '2026-12-01T10:00:42.500Z', alerts: 1 }),
      ]);
    });
  });
}
