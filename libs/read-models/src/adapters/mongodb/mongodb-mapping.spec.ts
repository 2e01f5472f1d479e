import { assignmentProjection } from '../../assignments/assignment.projection';
import { incidentProjection } from '../../incidents/incident.projection';
import { preferencesProjection } from '../../preferences/preferences.projection';
import { storedTexts } from '../../projection';
import { toTimelineEventView } from '../../timeline/timeline-event.view';
import { timelineProjection, type TimelineRecord, toTimelineEntry } from '../../timeline/timeline.projection';
import { fromHex, hex, indexSpecs, queryFields } from './mongodb-read-store';

describe('MongoDB position encoding (checked without a server)', () => {
  it('round-trips positions up to 128 bits', () => {
    for (const position of [0n, 1n, 2n ** 53n + 1n, (2n ** 64n - 1n) << 64n | 12345n]) expect(fromHex(hex(position))).toBe(position);
  });

  it('orders encoded positions as strings exactly as the numbers order', () => {
    const positions = [0n, 9n, 10n, 255n, 256n, 2n ** 64n, (1n << 127n) + 5n];
    const encoded = positions.map(hex);
    expect([...encoded].sort()).toEqual(encoded);
  });
});

describe('MongoDB collections derived from the projections (checked without a server)', () => {
  // What the store created by hand before the projections declared their schema: existing deployments keep these indexes.
  it('declares the indexes the existing collections have', () => {
    expect(indexSpecs(incidentProjection.schema)).toEqual([
      { 'q.createdAt': -1, _id: -1 },
      { 'q.status': 1, 'q.createdAt': -1, _id: -1 },
      { 'q.severity': 1, 'q.createdAt': -1, _id: -1 },
      // Added with on-call: an incident's service, and the incidents still paging.
      { 'q.serviceId': 1, 'q.status': 1 },
      { 'q.pagingExhausted': 1, 'q.status': 1, _id: 1 },
    ]);
    expect(indexSpecs(timelineProjection.schema)).toEqual([
      { 'q.incidentId': 1, 'q.eventTime': 1, position: 1 },
      { 'q.correlationKey': 1, 'q.eventTime': 1, position: 1 },
      { 'q.fingerprint': 1, 'q.eventTime': 1, position: 1 },
      { 'q.type': 1, 'q.eventTime': 1, position: 1 },
      { 'q.actor': 1, 'q.eventTime': 1, position: 1 },
      { 'q.eventTime': 1, position: 1 },
      { 'q.eventId': 1, position: 1 },
    ]);
    expect(indexSpecs(assignmentProjection.schema)).toEqual([{ 'q.userId': 1, 'q.incidentId': 1 }]);
    expect(indexSpecs(preferencesProjection.schema)).toEqual([]);
    // Key order is index order.
    expect(indexSpecs(incidentProjection.schema).map(Object.keys)[1]).toEqual(['q.status', 'q.createdAt', '_id']);
  });

  it('stores the query fields beside each document, null where the document has none', () => {
    const incident = { id: 'INC-1', title: 't', severity: 'SEV-1', status: 'open', createdAt: '2026-11-22T00:00:00.000Z', updatedAt: '2026-11-22T00:00:00.000Z' };
    expect(queryFields(incidentProjection.schema, incident)).toEqual({ status: 'open', severity: 'SEV-1', createdAt: incident.createdAt, visibility: null, serviceId: null, escalationPolicyId: null, pagingExhausted: null });
    expect(queryFields(incidentProjection.schema, { ...incident, visibility: 'restricted' })).toMatchObject({ visibility: 'restricted' });
    const event = { specversion: '1.0', id: 'evt-1', source: 'im://alerts', type: 'im.alert.trigger', 'im.fingerprint': 'disk:db-1' };
    const record = { incidentId: 'INC-1', eventTime: '2026-11-22T10:00:00.000Z', createdAt: '2026-11-22T10:00:01.000Z', event };
    expect(queryFields(timelineProjection.schema, record)).toEqual({
      incidentId: 'INC-1',
      eventTime: record.eventTime,
      eventId: 'evt-1',
      type: 'im.alert.trigger',
      actor: 'im://alerts',
      correlationKey: null,
      fingerprint: 'disk:db-1',
      visibility: null,
      dataClass: null,
    });
    expect(queryFields(timelineProjection.schema, { ...record, event: { ...event, 'im.actor': 'alice' } })).toMatchObject({ actor: 'alice' });
    // The policy's inputs as the event holds them (MongoDB keeps JSON values as they are).
    expect(queryFields(timelineProjection.schema, { ...record, event: { ...event, 'im.visibility': 'restricted', 'im.data_class': ['pii'] } })).toMatchObject({
      visibility: 'restricted',
      dataClass: ['pii'],
    });
    expect(queryFields(preferencesProjection.schema, { userId: 'ann' })).toEqual({});
  });

  it('keeps the declared texts beside each document: the timeline view, nothing redacted, as JSON text', () => {
    const event = { specversion: '1.0', id: 'evt-1', source: 'im://alerts', type: 'im.alert.trigger', time: '2026-11-22T10:00:00Z', data: { title: 'Disk', host: 'db-1' } };
    const record = { incidentId: 'INC-1', eventTime: '2026-11-22T10:00:00.000Z', createdAt: '2026-11-22T10:00:01.000Z', event } as TimelineRecord;
    expect(storedTexts(timelineProjection.schema, record)).toEqual({ view: JSON.stringify(toTimelineEventView({ entry: toTimelineEntry(record), redacted: [] })) });
    expect(storedTexts(incidentProjection.schema, { id: 'INC-1' })).toEqual({});
  });
});
