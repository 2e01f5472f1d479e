import { InvalidError } from '@im/incidents';
import { parseCreateIntegrationKeyBody } from './create-integration-key.body';

describe('parseCreateIntegrationKeyBody', () => {
  it('gives the name and roles, ignoring other fields', () => {
    expect(parseCreateIntegrationKeyBody({ name: 'alertmanager', roles: ['timeline.writer'], extra: 1 })).toEqual({ name: 'alertmanager', roles: ['timeline.writer'] });
  });

  it('gives the service a key belongs to, when it names one', () => {
    expect(parseCreateIntegrationKeyBody({ name: 'grafana', roles: ['timeline.writer'], service_id: 'svc-1' })).toEqual({ name: 'grafana', roles: ['timeline.writer'], serviceId: 'svc-1' });
  });

  it.each([
    [{ name: 'x', roles: [], service_id: 7 }, 'service_id must be a service id'],
    [[], 'Request body must be a JSON object'],
    [{ roles: ['timeline.writer'] }, 'name is required and must be a string'],
    [{ name: 'x', roles: 'timeline.writer' }, 'roles is required and must be a list of role names'],
    [{ name: 1, roles: [1] }, 'name is required and must be a string; roles is required and must be a list of role names'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseCreateIntegrationKeyBody(body)).toThrow(new InvalidError(message));
  });
});
