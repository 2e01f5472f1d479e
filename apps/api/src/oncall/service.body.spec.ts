import { InvalidError } from '@im/incidents';
import { parseServiceBody } from './service.body';

describe('parseServiceBody', () => {
  it('gives the name, and null for a description or policy absent or null', () => {
    expect(parseServiceBody({ name: 'Checkout', extra: 1 })).toEqual({ name: 'Checkout', description: null, escalation_policy_id: null });
    expect(parseServiceBody({ name: 'Checkout', description: 'Pays', escalation_policy_id: 'p1' })).toEqual({ name: 'Checkout', description: 'Pays', escalation_policy_id: 'p1' });
  });

  it.each([
    [[], 'Request body must be a JSON object'],
    [{}, 'name is required and must be a string'],
    [{ name: 1, description: 2, escalation_policy_id: [] }, 'name is required and must be a string; description must be a string or null; escalation_policy_id must be a string or null'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseServiceBody(body)).toThrow(new InvalidError(message));
  });
});
