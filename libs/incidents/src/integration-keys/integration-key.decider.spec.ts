import { InvalidError, NotFoundError } from '../domain-errors';
import {
  decideIntegrationKey,
  evolveIntegrationKeys,
  initialIntegrationKeysState,
  type IntegrationKeyCommand,
  type IntegrationKeysState,
} from './integration-key.decider';

const create = (over: Partial<Extract<IntegrationKeyCommand, { kind: 'create' }>> = {}): IntegrationKeyCommand => ({
  kind: 'create',
  id: '00000000000000aa',
  name: 'alertmanager-prod',
  roles: ['timeline.writer'],
  keyHash: 'ab'.repeat(32),
  ...over,
});
const after = (...commands: IntegrationKeyCommand[]): IntegrationKeysState =>
  commands.reduce((state, command) => decideIntegrationKey(command, state).reduce(evolveIntegrationKeys, state), initialIntegrationKeysState);

describe('decideIntegrationKey', () => {
  it('creates a key with its name trimmed, its roles once, and only the hash', () => {
    expect(decideIntegrationKey(create({ name: ' grafana ', roles: ['timeline.writer', 'timeline.writer'] }), initialIntegrationKeysState)).toEqual([
      { type: 'im.integration_key.created', data: { id: '00000000000000aa', name: 'grafana', roles: ['timeline.writer'], key_hash: 'ab'.repeat(32) } },
    ]);
  });

  it('records the service a key belongs to, when it names one', () => {
    expect(decideIntegrationKey(create({ serviceId: 'svc-1' }), initialIntegrationKeysState)[0].data).toEqual({
      id: '00000000000000aa', name: 'alertmanager-prod', roles: ['timeline.writer'], key_hash: 'ab'.repeat(32), service_id: 'svc-1',
    });
  });

  it.each([[['timeline.reader']], [['timeline.writer', 'integrations.admin']], [[]]])('refuses the roles %j: a key only writes to the timeline', (roles) => {
    expect(() => decideIntegrationKey(create({ roles }), initialIntegrationKeysState)).toThrow(
      new InvalidError('roles must list roles among timeline.writer: an integration key only writes to the timeline'),
    );
  });

  it.each(['', '   ', 'x'.repeat(101)])('refuses the name %j', (name) => {
    expect(() => decideIntegrationKey(create({ name }), initialIntegrationKeysState)).toThrow(InvalidError);
  });

  it('refuses to create a key whose id exists', () => {
    expect(() => decideIntegrationKey(create(), after(create()))).toThrow('Integration key 00000000000000aa already exists');
  });

  it('revokes a key once: a second revoke records nothing', () => {
    const created = after(create());
    expect(decideIntegrationKey({ kind: 'revoke', id: '00000000000000aa' }, created)).toEqual([{ type: 'im.integration_key.revoked', data: { id: '00000000000000aa' } }]);
    expect(decideIntegrationKey({ kind: 'revoke', id: '00000000000000aa' }, after(create(), { kind: 'revoke', id: '00000000000000aa' }))).toEqual([]);
  });

  it('answers not found for a key never created', () => {
    expect(() => decideIntegrationKey({ kind: 'revoke', id: '00000000000000bb' }, after(create()))).toThrow(new NotFoundError('Integration key 00000000000000bb not found'));
  });
});
