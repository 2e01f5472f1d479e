import firing from '../../../../test/fixtures/alertmanager-firing.json';
import resolved from '../../../../test/fixtures/alertmanager-resolved.json';
import { grafanaFiring, grafanaResolved } from '../../../../test/fixtures/grafana-webhook';
import { parseAlertmanagerPayload, parseGrafanaPayload } from './alert-payload.body';

const invalid = (message: string) => expect.objectContaining({ kind: 'invalid', message });

describe('parseAlertmanagerPayload (POST /api/v1/integrations/alertmanager)', () => {
  it('reads the captured Alertmanager payloads: receiver and each alert, nothing else', () => {
    const payload = parseAlertmanagerPayload(firing);
    expect(payload).toEqual({ sender: 'alertmanager', receiver: 'incident-service', alerts: firing.alerts });
    expect(parseAlertmanagerPayload(resolved).alerts.map((alert) => [alert.status, alert.endsAt])).toEqual([['resolved', '2026-11-23T14:34:46.05Z']]);
  });

  it("keeps each alert's own status in a mixed payload, and startsAt with nanoseconds as received", () => {
    const mixed = {
      ...firing,
      status: 'firing',
      alerts: [{ ...firing.alerts[0], status: 'resolved', endsAt: '2026-11-23T14:35:00.1Z' }, { ...firing.alerts[1], startsAt: '2026-11-23T14:34:50.169002454Z' }],
    };
    expect(parseAlertmanagerPayload(mixed).alerts.map((alert) => [alert.status, alert.startsAt])).toEqual([
      ['resolved', '2026-11-23T14:34:37.011Z'],
      ['firing', '2026-11-23T14:34:50.169002454Z'],
    ]);
  });

  it.each([
    ['an array', [firing], 'The body must be an Alertmanager webhook payload (version 4), a JSON object'],
    ['version 3', { ...firing, version: '3' }, 'Not an Alertmanager webhook payload (version 4): version must be "4"'],
    ['no version', { ...firing, version: undefined }, 'Not an Alertmanager webhook payload (version 4): version is required'],
    ['an empty receiver', { ...firing, receiver: '' }, 'Not an Alertmanager webhook payload (version 4): receiver must not be empty'],
    ['alerts not an array', { ...firing, alerts: {} }, 'Not an Alertmanager webhook payload (version 4): alerts must be array'],
    ['an alert without fingerprint', { ...firing, alerts: [{ ...firing.alerts[0], fingerprint: undefined }] }, 'Not an Alertmanager webhook payload (version 4): alerts[0].fingerprint is required'],
    ['an unknown alert status', { ...firing, alerts: [firing.alerts[0], { ...firing.alerts[1], status: 'pending' }] }, 'Not an Alertmanager webhook payload (version 4): alerts[1].status must be "firing" or "resolved"'],
    ['a startsAt that is no timestamp', { ...firing, alerts: [{ ...firing.alerts[0], startsAt: 'yesterday' }] }, expect.stringMatching(/^Not an Alertmanager webhook payload \(version 4\): alerts\[0\]\.startsAt must be an RFC 3339 timestamp/)],
    ['a label that is not text', { ...firing, alerts: [{ ...firing.alerts[0], labels: { severity: 1 } }] }, 'Not an Alertmanager webhook payload (version 4): alerts[0].labels.severity must be string'],
    ['an alert without annotations and generatorURL', 
      { ...firing, alerts: [{ ...firing.alerts[0], annotations: undefined, generatorURL: undefined }] },
      'Not an Alertmanager webhook payload (version 4): alerts[0].annotations is required; alerts[0].generatorURL is required',
    ],
    ['Grafana\'s payload', grafanaFiring, 'Not an Alertmanager webhook payload (version 4): version must be "4"'],
  ])('refuses %s as invalid input (400)', (_, body, message) => {
    expect(() => parseAlertmanagerPayload(body)).toThrow(invalid(message as string));
  });
});

describe('parseGrafanaPayload (POST /api/v1/integrations/grafana)', () => {
  it("reads Grafana's payload (version 1, its extra fields ignored), startsAt with its offset as received", () => {
    expect(parseGrafanaPayload(grafanaFiring)).toEqual({
      sender: 'grafana',
      receiver: 'incident-service',
      alerts: [
        {
          status: 'firing',
          labels: grafanaFiring.alerts[0].labels,
          annotations: grafanaFiring.alerts[0].annotations,
          startsAt: '2024-06-04T09:51:03.157076+02:00',
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: grafanaFiring.alerts[0].generatorURL,
          fingerprint: 'c6eadffa33fcdf37',
        },
      ],
    });
    expect(parseGrafanaPayload({ ...grafanaResolved, alerts: [{ ...grafanaResolved.alerts[0], values: null }] }).alerts[0].status).toBe('resolved');
  });

  it.each([
    ['Alertmanager\'s payload', firing, 'Not a Grafana webhook payload (version 1): version must be "1"'],
    ['a value that is not a number', { ...grafanaFiring, alerts: [{ ...grafanaFiring.alerts[0], values: { A: 'high' } }] }, 'Not a Grafana webhook payload (version 1): alerts[0].values.A must be number'],
  ])('refuses %s as invalid input (400)', (_, body, message) => {
    expect(() => parseGrafanaPayload(body)).toThrow(invalid(message));
  });
});
