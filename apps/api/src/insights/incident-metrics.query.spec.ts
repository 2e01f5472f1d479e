import fc from 'fast-check';
import { TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import { parseMetricsFormat, parseMetricsQuery } from './incident-metrics.query';

const DAY = 86_400_000;
const FROM = Date.parse('2026-01-01T00:00:00Z');
const invalid = (message: string) => new InvalidError(message);

describe('parseMetricsQuery (GET /api/v1/analytics/incidents)', () => {
  it('gives the window in UTC and the grouping, none by default', () => {
    expect(parseMetricsQuery({ from: '2026-01-01T01:00:00+01:00', to: '2026-02-01T00:00:00.5Z' })).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-02-01T00:00:00.500Z',
      groupBy: 'none',
    });
    for (const groupBy of ['service', 'severity', 'week', 'none']) {
      expect(parseMetricsQuery({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', group_by: groupBy }).groupBy).toBe(groupBy);
    }
  });

  it.each([
    [{ to: '2026-01-02T00:00:00Z' }, `from must be ${TIMESTAMP_RULE}`],
    [{ from: '2026-01-01T00:00:00Z' }, `to must be ${TIMESTAMP_RULE}`],
    [{ from: '2026-01-01', to: '2026-01-02T00:00:00Z' }, `from must be ${TIMESTAMP_RULE}`],
    [{ from: '2026-01-01T00:00:00Z', to: ['2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z'] }, `to must be ${TIMESTAMP_RULE}`],
    [{ from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to must be after from'],
    [{ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to must be after from'],
    [{ from: '2025-01-01T00:00:00Z', to: '2026-01-02T00:00:00.001Z' }, 'from and to must be at most 366 days apart'],
    [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', group_by: 'month' }, 'group_by must be service or severity or week or none'],
    [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', group_by: ['week', 'none'] }, 'group_by must be service or severity or week or none'],
  ])('refuses %j, naming the parameter', (query, message) => {
    expect(() => parseMetricsQuery(query)).toThrow(invalid(message));
  });

  it('accepts exactly the windows longer than nothing and at most 366 days long, written in any offset', () => {
    fc.assert(
      fc.property(fc.integer({ min: -DAY, max: 370 * DAY }), fc.integer({ min: -12, max: 14 }), (length, offsetHours) => {
        const shifted = new Date(FROM + length + offsetHours * 3_600_000).toISOString().slice(0, 23);
        const sign = offsetHours < 0 ? '-' : '+';
        const to = `${shifted}${sign}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
        let answer: string | undefined;
        try {
          answer = parseMetricsQuery({ from: new Date(FROM).toISOString(), to }).to;
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidError);
        }
        expect(answer).toBe(length > 0 && length <= 366 * DAY ? new Date(FROM + length).toISOString() : undefined);
      }),
    );
  });
});

describe('parseMetricsFormat (Accept)', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['application/json', 'json'],
    ['*/*', 'json'],
    ['text/html', 'json'],
    ['text/csv', 'csv'],
    ['Text/CSV; charset=utf-8', 'csv'],
    ['text/csv, */*', 'csv'],
    ['text/*', 'csv'],
    ['application/json, text/csv', 'json'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['text/csv;q=0.5, application/json', 'json'],
    ['text/csv;q=0', 'json'],
  ])('reads Accept %j as %s', (accept, format) => {
    expect(parseMetricsFormat(accept)).toBe(format);
  });
});
