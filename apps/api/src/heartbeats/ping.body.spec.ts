import { InvalidError } from '@im/incidents';
import { isPing } from './ping.body';

/** The shape of an Alertmanager webhook payload, trimmed to what matters here. */
const firing = { version: '4', status: 'firing', receiver: 'heartbeat', alerts: [{ status: 'firing', labels: { alertname: 'Watchdog' } }] };

describe('isPing', () => {
  it('counts no body, any JSON object and a firing alert payload as a ping', () => {
    expect(isPing(undefined)).toBe(true);
    expect(isPing({})).toBe(true);
    expect(isPing({ status: 'resolved' })).toBe(true);
    expect(isPing(firing)).toBe(true);
  });

  it('does not count an alert payload whose status is resolved', () => {
    expect(isPing({ ...firing, status: 'resolved' })).toBe(false);
  });

  it.each([[[]], ['ping'], [null], [1]])('refuses %j: the body must be a JSON object', (body) => {
    expect(() => isPing(body)).toThrow(new InvalidError('Request body must be a JSON object'));
  });
});
