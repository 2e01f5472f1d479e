import { ForbiddenError, InvalidError } from '@im/incidents';
import { ANONYMOUS, type Principal } from '@im/access';
import { parseCreateWebhookBody as parseAs } from './create-webhook.body';

const LEVELS = ['public', 'internal', 'restricted', 'confidential'];
/** An admin who holds everything a registration may ask for. */
const root: Principal = { ...ANONYMOUS, sub: 'root', authenticated: true, clearance: 'confidential', dataAccess: ['pii', 'phi', 'legal_hold'] };
const parseCreateWebhookBody = (body: unknown) => parseAs(body, root, LEVELS);

describe('parseCreateWebhookBody', () => {
  it('gives the url, the event types, and the defaults internal, no data class, no description', () => {
    expect(parseCreateWebhookBody({ url: 'https://hooks.example.com/im', event_types: ['im.incident.*'], extra: 1 })).toEqual({
      url: new URL('https://hooks.example.com/im'),
      eventTypes: ['im.incident.*'],
      clearance: 'internal',
      dataAccess: [],
      description: null,
    });
    expect(parseCreateWebhookBody({ url: 'http://x.example/', event_types: ['*'], clearance: 'confidential', data_access: ['pii'], description: 'chat' })).toMatchObject({
      clearance: 'confidential',
      dataAccess: ['pii'],
      description: 'chat',
    });
  });

  it.each([
    [[], 'Request body must be a JSON object'],
    [{ event_types: ['*'] }, 'url is required and must be an http(s) URL of at most 2048 characters'],
    [{ url: 'ftp://x.example/', event_types: ['*'] }, 'url must be an absolute http(s) URL'],
    [{ url: '/relative', event_types: ['*'] }, 'url must be an absolute http(s) URL'],
    [{ url: 'https://u:p@x.example/', event_types: ['*'] }, 'url must not carry a user name or password: deliveries are signed instead'],
    [{ url: 'https://x.example/', event_types: [] }, 'event_types is required and must list event types, each optionally ending in * (e.g. im.incident.*), or *'],
    [{ url: 'https://x.example/', event_types: ['incident'] }, 'event_types is required and must list event types, each optionally ending in * (e.g. im.incident.*), or *'],
    [{ url: 'https://x.example/', event_types: ['*'], clearance: 'secret' }, 'clearance must be one of public, internal, restricted, confidential'],
    [{ url: 'https://x.example/', event_types: ['*'], data_access: ['pci'] }, 'data_access must be a list of pii, phi, legal_hold'],
    [{ url: 'https://x.example/', event_types: ['*'], description: 5 }, 'description must be a string'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseCreateWebhookBody(body)).toThrow(new InvalidError(message));
  });

  describe('a registration reads no more than its registrant', () => {
    const publicAdmin: Principal = { ...ANONYMOUS, sub: 'pat', authenticated: true, clearance: 'public', dataAccess: [] };
    const internalAdmin: Principal = { ...publicAdmin, clearance: 'internal', dataAccess: ['pii'] };
    const hook = { url: 'https://x.example/', event_types: ['*'] };

    it.each([
      ['a public admin', { clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] }, publicAdmin, 'clearance confidential ranks above your clearance (public)'],
      ['a public admin', {}, publicAdmin, 'the default clearance internal ranks above your clearance (public)'],
      ['an internal admin', { clearance: 'restricted' }, internalAdmin, 'clearance restricted ranks above your clearance (internal)'],
      ['a public admin', { clearance: 'public', data_access: ['pii'] }, publicAdmin, 'data_access pii is not in your data_access (none)'],
      ['an internal admin with pii', { data_access: ['pii', 'phi', 'legal_hold'] }, internalAdmin, 'data_access phi, legal_hold are not in your data_access (pii)'],
    ])('refuses %s asking %j', (_who, asked, admin, message) => {
      const levels = admin.clearance === 'public' ? ['public'] : ['public', 'internal'];
      expect(() => parseAs({ ...hook, ...asked }, admin, levels)).toThrow(new ForbiddenError(`${message}: a webhook is sent no more than the admin who registers it may read`));
    });

    it('takes what the admin holds, or less', () => {
      expect(parseAs({ ...hook, clearance: 'public' }, publicAdmin, ['public'])).toMatchObject({ clearance: 'public', dataAccess: [] });
      expect(parseAs({ ...hook, data_access: ['pii'] }, internalAdmin, ['public', 'internal'])).toMatchObject({ clearance: 'internal', dataAccess: ['pii'] });
    });
  });
});
