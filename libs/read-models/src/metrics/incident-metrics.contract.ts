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
    const changed = async (after = 0n, limit = 1000) => (await store.metrics.changedSince(after, limit)).changes.map(({ facts, position }) => ({ id: facts.id, position, facts }));

    it('answers every fact as it was written, with the position of its change', async () => {
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
        facts('INC-00000003', '2026-12-02T00:00:00.000Z', { outcome: 'duplicate', severity: 'SEV-4', serviceId: 'svc-2', visibility: 'internal' }),
      ];
      await save(written);
      expect(await store.metrics.changedSince(0n, 10)).toEqual({ changes: written.map((doc, i) => ({ facts: doc, position: position - 2n + BigInt(i) })), readTo: position });
    });

    it('answers an incident written again once, as last written, at its latest change', async () => {
      const declared = facts('INC-00000001', '2026-12-01T10:00:00.000Z', { serviceId: 'svc-1' });
      await save([declared, facts('INC-00000002', '2026-12-01T10:00:00.000Z')]);
      const resolved = { ...declared, acknowledgedAt: '2026-12-01T10:05:00.000Z', resolvedAt: '2026-12-01T10:09:00.000Z', escalated: true, alerts: 3, severity: 'SEV-1' as const };
      await save([resolved]);
      expect((await changed()).map(({ id, position }) => [id, position])).toEqual([
        ['INC-00000002', position - 1n],
        ['INC-00000001', position],
      ]);
      expect((await changed()).find(({ id }) => id === 'INC-00000001')?.facts).toEqual(resolved);
    });

    it('answers only the changes after the position asked, the earliest first, at most the limit', async () => {
      await save(['1', '2', '3', '4', '5'].map((n) => facts(`INC-0000000${n}`, '2026-12-01T10:00:00.000Z')));
      const ids = async (after: bigint, limit: number) => (await changed(after, limit)).map(({ id }) => id);
      expect(await ids(position - 3n, 2)).toEqual(['INC-00000003', 'INC-00000004']);
      expect(await ids(position, 10)).toEqual([]);
      expect(await ids(0n, 0)).toEqual([]);
      // The next read starts after the last change answered, never before `after`.
      expect((await store.metrics.changedSince(position - 3n, 2)).readTo).toBe(position - 1n);
      expect((await store.metrics.changedSince(position, 10)).readTo).toBe(position);
    });

    it('misses no change when read again from the last position answered, whatever changed between the reads', async () => {
      await save(['1', '2', '3', '4'].map((n) => facts(`INC-0000000${n}`, '2026-12-01T10:00:00.000Z')));
      const copy = new Map<string, IncidentFacts>();
      let after = 0n;
      const read = async () => {
        const { changes, readTo } = await store.metrics.changedSince(after, 2);
        for (const { facts: now } of changes) copy.set(now.id, now);
        after = readTo;
      };
      await read();
      // The first incident read changes again, and a new one is declared, before the next read.
      await save([facts('INC-00000001', '2026-12-01T10:00:00.000Z', { acknowledgedAt: '2026-12-01T10:00:05.000Z' }), facts('INC-00000005', '2026-12-01T10:00:00.000Z')]);
      for (let reads = 0; reads < 3; reads++) await read();
      expect(copy.size).toBe(5);
      expect(copy.get('INC-00000001')?.acknowledgedAt).toBe('2026-12-01T10:00:05.000Z');
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
      expect((await changed()).map(({ facts: now }) => now)).toEqual([
        facts('INC-0000abcd', '2026-12-01T10:00:00.000Z', { serviceId: 'svc-1', visibility: 'internal', acknowledgedAt: '2026-12-01T10:00:42.500Z', alerts: 1 }),
      ]);
    });
  });
}
