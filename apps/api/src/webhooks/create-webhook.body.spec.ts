import { InvalidError } from '@im/incidents';
import { parseCreateWebhookBody, typeMatches } from './create-webhook.body';

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
});

describe('typeMatches', () => {
  it.each([
    ['*', 'im.incident.note', true],
    ['im.incident.*', 'im.incident.note', true],
    ['im.incident.*', 'im.alert.trigger', false],
    ['im.incident.note', 'im.incident.note', true],
    ['im.incident.note', 'im.incident.notes', false],
  ])('%s matches %s: %s', (pattern, type, expected) => {
    expect(typeMatches(pattern, type)).toBe(expected);
  });
});
