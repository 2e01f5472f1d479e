import { InvalidError } from '@im/incidents';
import { parseCreateIntegrationKeyBody } from './create-integration-key.body';

describe('parseCreateIntegrationKeyBody', () => {
  it('gives the name and roles, ignoring other fields', () => {
    expect(parseCreateIntegrationKeyBody({ name: 'alertmanager', roles: ['timeline.writer'], extra: 1 })).toEqual({ name: 'alertmanager', roles: ['timeline.writer'] });
  });

  it.each([
    [[], 'Request body must be a JSON object'],
    [{ roles: ['timeline.writer'] }, 'name is required and must be a string'],
    [{ name: 'x', roles: 'timeline.writer' }, 'roles is required and must be a list of role names'],
    [{ name: 1, roles: [1] }, 'name is required and must be a string; roles is required and must be a list of role names'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseCreateIntegrationKeyBody(body)).toThrow(new InvalidError(message));
  });
});
