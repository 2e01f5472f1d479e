import { checkCloudEvent } from '@im/cloudevents';
import firing from '../../../../test/fixtures/alertmanager-firing.json';
import { grafanaResolved } from '../../../../test/fixtures/grafana-webhook';
import { alertEvent } from './alert-event';
import type { Alert } from './alert-payload.body';

const alert = firing.alerts[0] as Alert;
const withLabels = (labels: Record<string, string>, annotations: Record<string, string> = {}): Alert => ({ ...alert, labels, annotations });

describe('alertEvent: one webhook alert as its ledger event', () => {
  it('turns a firing alert into a valid im.alert.trigger, routed and deduplicated by its fingerprint and startsAt', () => {
    const event = alertEvent(alert, 'alertmanager', 'incident-service', 'evt-1');
    expect(event).toEqual({
      specversion: '1.0',
      id: 'evt-1',
      source: 'im://alertmanager/incident-service',
      type: 'im.alert.trigger',
      time: '2026-11-23T14:34:37.011Z',
      'im.fingerprint': '5652128801aaa03e',
      'im.origin_id': '5652128801aaa03e@2026-11-23T14:34:37.011Z',
      data: {
        title: 'Disk almost full on db-1:9100',
        severity: 'SEV-1',
        service: 'payments',
        labels: alert.labels,
        annotations: alert.annotations,
        generatorURL: alert.generatorURL,
        startsAt: '2026-11-23T14:34:37.011Z',
        endsAt: '0001-01-01T00:00:00Z',
      },
    });
    expect(checkCloudEvent(event)).toEqual({ ok: true, event });
  });

  it('turns a resolved alert into im.alert.resolve at its endsAt, its origin id marked :resolved', () => {
    const event = alertEvent(grafanaResolved.alerts[0], 'grafana', 'incident-service', 'evt-2');
    expect(event).toEqual(
      expect.objectContaining({
        source: 'im://grafana/incident-service',
        type: 'im.alert.resolve',
        // Grafana writes its server's offset and microseconds: the event time is UTC, the origin id keeps the text as sent.
        time: '2024-06-04T08:06:03.157Z',
        'im.origin_id': 'c6eadffa33fcdf37@2024-06-04T09:51:03.157076+02:00:resolved',
      }),
    );
    expect(event.data).toEqual(expect.objectContaining({ title: 'Checkout p99 latency above 2 s in eu-west-1', severity: 'SEV-2', service: 'checkout' }));
    expect(checkCloudEvent(event).ok).toBe(true);
  });

  it('keeps a startsAt with nanoseconds verbatim in the origin id, and cuts the event time to milliseconds in UTC', () => {
    const event = alertEvent({ ...alert, startsAt: '2026-11-23T14:34:50.169002454Z' }, 'alertmanager', 'im', 'evt-3');
    expect([event.time, event['im.origin_id']]).toEqual(['2026-11-23T14:34:50.169Z', '5652128801aaa03e@2026-11-23T14:34:50.169002454Z']);
    expect(checkCloudEvent(event).ok).toBe(true);
  });

  it.each([
    ['critical', 'SEV-1'],
    ['error', 'SEV-2'],
    ['high', 'SEV-2'],
    ['warning', 'SEV-3'],
    ['info', 'SEV-4'],
    ['Critical', 'SEV-1'],
    ['page', 'SEV-3'],
    ['constructor', 'SEV-3'],
    [undefined, 'SEV-3'],
  ])('maps labels.severity %s to %s', (severity, expected) => {
    const labels: Record<string, string> = severity === undefined ? { alertname: 'X' } : { alertname: 'X', severity };
    expect(alertEvent(withLabels(labels), 'alertmanager', 'im', 'e').data?.severity).toBe(expected);
  });

  it('takes the title from annotations.summary, else labels.alertname, else none (the incident is named after the fingerprint); the service from labels.service, else labels.job', () => {
    const data = (labels: Record<string, string>, annotations: Record<string, string> = {}) => alertEvent(withLabels(labels, annotations), 'alertmanager', 'im', 'e').data;
    expect(data({ alertname: 'HighLoad', job: 'node' }, { summary: '  ' })).toEqual(expect.objectContaining({ title: 'HighLoad', service: 'node' }));
    expect(data({ job: 'node', service: 'api' })).toEqual(expect.objectContaining({ service: 'api' }));
    expect(data({ job: 'node' })).not.toHaveProperty('services');
    expect(data({})).not.toHaveProperty('title');
    expect(data({})).not.toHaveProperty('service');
    expect(data({ alertname: 'x' }, { summary: 'y'.repeat(600) })?.title).toHaveLength(500);
  });

  it('percent-encodes a receiver name that would not make a valid source URI', () => {
    const event = alertEvent(alert, 'alertmanager', 'team A/on-call', 'e');
    expect(event.source).toBe('im://alertmanager/team%20A%2Fon-call');
    expect(checkCloudEvent(event).ok).toBe(true);
  });
});
