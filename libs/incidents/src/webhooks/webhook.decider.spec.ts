import { InvalidError, NotFoundError } from '../domain-errors';
import { decideWebhook, evolveWebhooks, initialWebhooksState, type WebhookCommand, type WebhooksState } from './webhook.decider';

const register = (over: Partial<Extract<WebhookCommand, { kind: 'register' }>> = {}): WebhookCommand => ({
  kind: 'register',
  id: 'wh_1',
  url: 'https://hooks.example.com/im',
  eventTypes: ['im.incident.*'],
  clearance: 'internal',
  dataAccess: [],
  description: null,
  sealedSecret: 'sealed',
  ...over,
});
const after = (...commands: WebhookCommand[]): WebhooksState =>
  commands.reduce((state, command) => decideWebhook(command, state).reduce(evolveWebhooks, state), initialWebhooksState);

describe('decideWebhook', () => {
  it('registers with its event types and data classes once, keeping only the sealed secret', () => {
    expect(decideWebhook(register({ eventTypes: ['im.incident.*', 'im.incident.*'], dataAccess: ['pii', 'pii'] }), initialWebhooksState)).toEqual([
      {
        type: 'im.webhook.registered',
        data: { id: 'wh_1', url: 'https://hooks.example.com/im', event_types: ['im.incident.*'], clearance: 'internal', data_access: ['pii'], description: null, sealed_secret: 'sealed' },
      },
    ]);
  });

  it.each([[{ eventTypes: [] }], [{ description: 'x'.repeat(501) }]])('refuses %j', (over) => {
    expect(() => decideWebhook(register(over), initialWebhooksState)).toThrow(InvalidError);
  });

  it('refuses an id that exists', () => {
    expect(() => decideWebhook(register(), after(register()))).toThrow('Webhook wh_1 already exists');
  });

  it('removes once: a second removal, or one of a webhook never registered, is not found', () => {
    expect(decideWebhook({ kind: 'remove', id: 'wh_1' }, after(register()))).toEqual([{ type: 'im.webhook.removed', data: { id: 'wh_1' } }]);
    expect(() => decideWebhook({ kind: 'remove', id: 'wh_1' }, after(register(), { kind: 'remove', id: 'wh_1' }))).toThrow(new NotFoundError('Webhook wh_1 not found'));
    expect(() => decideWebhook({ kind: 'remove', id: 'wh_2' }, initialWebhooksState)).toThrow(NotFoundError);
  });

  it('disables an enabled webhook once, and never a removed one', () => {
    const disable: WebhookCommand = { kind: 'disable', id: 'wh_1', reason: 'gone' };
    expect(decideWebhook(disable, after(register()))).toEqual([{ type: 'im.webhook.disabled', data: { id: 'wh_1', reason: 'gone' } }]);
    expect(decideWebhook(disable, after(register(), disable))).toEqual([]);
    expect(decideWebhook(disable, after(register(), { kind: 'remove', id: 'wh_1' }))).toEqual([]);
    // A disabled webhook can still be removed.
    expect(decideWebhook({ kind: 'remove', id: 'wh_1' }, after(register(), disable))).toHaveLength(1);
  });
});
