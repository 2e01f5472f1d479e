import { TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import { parseIncidentMetricsArgs } from './incident-metrics.args';
import { MetricsGrouping } from './insights.types';

const FROM = new Date('2026-01-01T00:00:00Z');
const TO = new Date('2026-02-01T00:00:00Z');

describe('parseIncidentMetricsArgs (incidentMetrics)', () => {
  it('gives the window in UTC and the grouping, NONE for an explicit null', () => {
    expect(parseIncidentMetricsArgs(FROM, TO, MetricsGrouping.WEEK)).toEqual({ from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z', groupBy: 'week' });
    expect(parseIncidentMetricsArgs(FROM, TO, null).groupBy).toBe('none');
    expect(parseIncidentMetricsArgs(FROM, TO, MetricsGrouping.SERVICE).groupBy).toBe('service');
    expect(parseIncidentMetricsArgs(FROM, TO, MetricsGrouping.SEVERITY).groupBy).toBe('severity');
  });

  it.each([
    [new Date('soon'), TO, `from must be ${TIMESTAMP_RULE}`],
    // The scalar's answer to a literal that is not a string (from: 123).
    [null, TO, `from must be ${TIMESTAMP_RULE}`],
    [FROM, new Date(Number.NaN), `to must be ${TIMESTAMP_RULE}`],
    [new Date('+010000-01-01T00:00:00Z'), new Date('+010000-01-02T00:00:00Z'), `from must be ${TIMESTAMP_RULE}`],
    [TO, FROM, 'to must be after from'],
    [new Date('2025-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00.001Z'), 'from and to must be at most 366 days apart'],
  ])('refuses from %s to %s as REST does', (from, to, message) => {
    expect(() => parseIncidentMetricsArgs(from, to, MetricsGrouping.NONE)).toThrow(new InvalidError(message));
  });
});
