import { createECDH, randomBytes } from 'node:crypto';
import { InvalidError } from '@im/incidents';
import { parsePushSubscriptionInput, validSubscriptionKeys } from './push-subscription.input';

const p256dh = createECDH('prime256v1');
p256dh.generateKeys();
const keys = { p256dh: p256dh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };

describe('parsePushSubscriptionInput', () => {
  it("takes a browser's subscription as it comes (padded base64url too)", () => {
    const endpoint = 'https://fcm.googleapis.com/fcm/send/abc:def';
    expect(parsePushSubscriptionInput({ endpoint, keys })).toEqual({ endpoint, keys });
    expect(parsePushSubscriptionInput({ endpoint, keys: { p256dh: `${keys.p256dh}=`, auth: `${keys.auth}==` } }).keys).toEqual(keys);
  });

  it.each([
    ['an http endpoint', { endpoint: 'http://push.example/x', keys }, 'endpoint must be the https URL of a push service, at most 2048 characters'],
    ['no endpoint', { keys }, 'endpoint must be the https URL'],
    ['an endpoint with credentials', { endpoint: 'https://u:p@push.example/x', keys }, 'endpoint must be the https URL'],
    ['a key that is not base64url', { endpoint: 'https://push.example/x', keys: { ...keys, p256dh: 'not a key!' } }, 'keys.p256dh must be the base64url of an uncompressed P-256 public key (65 bytes, a point on the curve)'],
    ['a compressed key', { endpoint: 'https://push.example/x', keys: { ...keys, p256dh: Buffer.alloc(33, 2).toString('base64url') } }, 'keys.p256dh must be'],
    ['65 bytes that are no point on P-256', { endpoint: 'https://push.example/x', keys: { ...keys, p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url') } }, 'a point on the curve'],
    ['a short auth secret', { endpoint: 'https://push.example/x', keys: { ...keys, auth: randomBytes(8).toString('base64url') } }, 'keys.auth must be the base64url of a 16-byte authentication secret'],
    ['no keys', { endpoint: 'https://push.example/x', keys: null }, 'keys.p256dh must be'],
  ])('refuses %s', (_, input, message) => {
    expect(() => parsePushSubscriptionInput(input as never)).toThrow(InvalidError);
    expect(() => parsePushSubscriptionInput(input as never)).toThrow(message);
  });
});

describe('validSubscriptionKeys (checked again before each send)', () => {
  it('accepts keys a message can be encrypted for, and nothing else', () => {
    expect(validSubscriptionKeys(keys)).toBe(true);
    expect(validSubscriptionKeys({ ...keys, p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url') })).toBe(false);
    expect(validSubscriptionKeys({ ...keys, auth: 'x' })).toBe(false);
  });
});
