import { TIMESTAMP_RULE } from '@im/cloudevents';
import { parseIncidentTimelineQuery, parseTimelineSearch } from './timeline-filter';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });

describe('parseIncidentTimelineQuery (GET /api/v1/incidents/:id/timeline)', () => {
  it('reads no parameters as the newest 50 events of the incident', () => {
    expect(parseIncidentTimelineQuery({}, 'INC-1')).toEqual({ query: { incidentId: 'INC-1', order: 'desc', limit: 50 }, cursor: undefined });
  });

  it('reads every filter into the read-model query, with times in UTC and a limit from its text', () => {
    const filter = parseIncidentTimelineQuery(
      { type: 'im.incident.*', actor: 'alice', from: '2026-11-22T10:00:00+02:00', to: '2026-11-22T10:00:00Z', limit: '7', order: 'asc', cursor: 'abc' },
      'INC-1',
    );
    expect(filter).toEqual({
      query: { incidentId: 'INC-1', type: { prefix: 'im.incident.' }, actor: 'alice', from: '2026-11-22T08:00:00.000Z', to: '2026-11-22T10:00:00.000Z', order: 'asc', limit: 7 },
      cursor: 'abc',
    });
  });

  it('reads an exact type, and * as no type filter', () => {
    expect(parseIncidentTimelineQuery({ type: 'im.note.added' }, 'INC-1').query.type).toEqual({ exact: 'im.note.added' });
    expect(parseIncidentTimelineQuery({ type: '*' }, 'INC-1').query).not.toHaveProperty('type');
  });

  it('keeps the incident of the path whatever the parameters say', () => {
    expect(parseIncidentTimelineQuery({ incident_id: 'INC-2' }, 'INC-1').query.incidentId).toBe('INC-1');
  });

  it.each([
    [{ limit: '0' }, 'limit must be a whole number from 1 to 1000'],
    [{ limit: '1001' }, 'limit must be a whole number from 1 to 1000'],
    [{ limit: '1e3' }, 'limit must be a whole number from 1 to 1000'],
    [{ limit: ['1', '2'] }, 'limit must be a whole number from 1 to 1000'],
    [{ order: 'up' }, 'order must be asc or desc'],
    [{ type: 'incident.*' }, 'type must be an event type, optionally ending in * (e.g. im.incident.*)'],
    [{ type: 'im.*.x' }, 'type must be an event type, optionally ending in * (e.g. im.incident.*)'],
    [{ actor: '' }, 'actor must be a non-empty string'],
    [{ actor: 'a'.repeat(1025) }, 'actor must be a non-empty string'],
    [{ actor: ['a', 'b'] }, 'actor must be a non-empty string'],
    [{ from: 'yesterday' }, `from must be ${TIMESTAMP_RULE}`],
    [{ to: '2026-11-22T10:00:00' }, `to must be ${TIMESTAMP_RULE}`],
    [{ from: '2026-11-23T00:00:00Z', to: '2026-11-22T00:00:00Z' }, 'from must not be after to'],
    [{ cursor: ['a', 'b'] }, 'cursor must be the next_cursor of the previous page'],
  ])('refuses %j: %s', (query, message) => {
    expect(() => parseIncidentTimelineQuery(query, 'INC-1')).toThrow(invalid(message));
  });
});

describe('parseTimelineSearch (POST /api/v1/timeline/query)', () => {
  it('reads a body into the read-model query, with the body names', () => {
    expect(
      parseTimelineSearch({
        correlation_key: 'deploy-42',
        fingerprint: 'fp',
        incident_id: 'INC-1',
        type: 'im.alert.trigger',
        actor: 'alice',
        from_time: '2026-11-22T10:00:00Z',
        to_time: '2026-11-22T11:00:00Z',
        limit: 10,
        order: 'asc',
        cursor: 'abc',
      }),
    ).toEqual({
      query: {
        correlationKey: 'deploy-42',
        fingerprint: 'fp',
        incidentId: 'INC-1',
        type: { exact: 'im.alert.trigger' },
        actor: 'alice',
        from: '2026-11-22T10:00:00.000Z',
        to: '2026-11-22T11:00:00.000Z',
        order: 'asc',
        limit: 10,
      },
      cursor: 'abc',
    });
  });

  it('needs one criterion only, and defaults the rest', () => {
    expect(parseTimelineSearch({ actor: 'alice' })).toEqual({ query: { actor: 'alice', order: 'desc', limit: 50 }, cursor: undefined });
  });

  it.each([
    [null, 'Request body must be a JSON object'],
    [undefined, 'Request body must be a JSON object'],
    [[{ actor: 'alice' }], 'Request body must be a JSON object'],
    ['actor=alice', 'Request body must be a JSON object'],
    [{ actor: 'alice', acter: 'bob', from: 'x' }, 'Unknown query field(s): acter, from'],
    [{}, 'At least one of correlation_key, fingerprint, incident_id, type, actor is required'],
    [{ limit: 5, order: 'asc' }, 'At least one of correlation_key, fingerprint, incident_id, type, actor is required'],
    [{ actor: 'alice', limit: '5' }, 'limit must be a whole number from 1 to 1000'],
    [{ actor: 'alice', limit: 2.5 }, 'limit must be a whole number from 1 to 1000'],
    [{ correlation_key: 42 }, 'correlation_key must be a non-empty string'],
    [{ fingerprint: '' }, 'fingerprint must be a non-empty string'],
    [{ incident_id: null }, 'incident_id must be a non-empty string'],
    [{ actor: 'alice', from_time: '2026-11-22' }, `from_time must be ${TIMESTAMP_RULE}`],
    [{ actor: 'alice', from_time: '2026-11-22T12:00:00Z', to_time: '2026-11-22T11:00:00Z' }, 'from_time must not be after to_time'],
    [{ actor: 'alice', order: 'DESC' }, 'order must be asc or desc'],
    [{ actor: 'alice', cursor: 7 }, 'cursor must be the next_cursor of the previous page'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseTimelineSearch(body)).toThrow(invalid(message));
  });
});
