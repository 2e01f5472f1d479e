import { InvalidError } from '@im/incidents';
import { parseHeartbeatBody } from './heartbeat.body';

describe('parseHeartbeatBody', () => {
  it('gives the name, interval and service as sent', () => {
    expect(parseHeartbeatBody({ name: 'Watchdog', interval_seconds: 300, service_id: 's1', extra: 1 })).toEqual({ name: 'Watchdog', interval_seconds: 300, service_id: 's1' });
  });

  it.each([
    [[], 'Request body must be a JSON object'],
    [{}, 'name is required and must be a string; interval_seconds is required and must be a number; service_id is required and must be a string'],
    [{ name: 'Watchdog', interval_seconds: '300', service_id: 's1' }, 'interval_seconds is required and must be a number'],
    [{ name: null, interval_seconds: 300, service_id: 7 }, 'name is required and must be a string; service_id is required and must be a string'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseHeartbeatBody(body)).toThrow(new InvalidError(message));
  });
});
