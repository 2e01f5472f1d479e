import { encodeCursor, nextPageLink, parseIncidentListQuery } from './incident-list.query';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });
const after = { createdAt: '2026-11-22T10:00:00.000Z', id: 'INC-0000000a' };

describe('parseIncidentListQuery (GET /api/v1/incidents)', () => {
  it('reads no parameters as the first 100 incidents, unfiltered', () => {
    expect(parseIncidentListQuery({})).toEqual({ statuses: undefined, severities: undefined, limit: 100, after: undefined });
  });

  it('reads comma lists and repeated parameters alike, a limit and a cursor', () => {
    expect(parseIncidentListQuery({ status: ['open, acknowledged', 'closed'], severity: 'SEV-1,SEV-2', limit: '5', cursor: encodeCursor(after) })).toEqual({
      statuses: ['open', 'acknowledged', 'closed'],
      severities: ['SEV-1', 'SEV-2'],
      limit: 5,
      after,
    });
  });

  it('gives back its own cursor in the next page link, with the filters', () => {
    const query = parseIncidentListQuery({ status: 'open', limit: '5' });
    const link = nextPageLink('/api/v1/incidents', query, after);
    const next = new URL(/^<(.*)>; rel="next"$/.exec(link)![1], 'http://x');
    expect(parseIncidentListQuery(Object.fromEntries(next.searchParams))).toEqual({ ...query, after });
  });

  it.each([
    [{ status: 'open,pending' }, 'status "pending" is not one of open, acknowledged, mitigated, resolved, closed, canceled, duplicate'],
    [{ severity: 'SEV-5' }, 'severity "SEV-5" is not one of SEV-1, SEV-2, SEV-3, SEV-4'],
    [{ limit: '0' }, 'limit must be a whole number from 1 to 1000'],
    [{ limit: '1001' }, 'limit must be a whole number from 1 to 1000'],
    [{ limit: '2.5' }, 'limit must be a whole number from 1 to 1000'],
    [{ limit: ['1', '2'] }, 'limit may be given once'],
    [{ cursor: ['a', 'b'] }, 'cursor may be given once'],
    [{ cursor: 'not-a-cursor' }, 'cursor is malformed: pass the value of a previous Link rel="next"'],
    [{ cursor: Buffer.from('[1,2]').toString('base64url') }, 'cursor is malformed: pass the value of a previous Link rel="next"'],
  ])('refuses %j: %s', (query, message) => {
    expect(() => parseIncidentListQuery(query)).toThrow(invalid(message));
  });
});
