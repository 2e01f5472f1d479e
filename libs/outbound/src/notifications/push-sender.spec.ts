import { createECDH, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import webPush from 'web-push';
import { neverAcceptingListener } from '../../../../test/support/never-accepting-listener';
import { PushSender } from './push-sender';

const browser = createECDH('prime256v1');
browser.generateKeys();
const keys = { p256dh: browser.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
const subscription = (endpoint: string, over: Partial<typeof keys> = {}) =>
  ({ id: 'ps_1', userId: 'mallory', endpoint, keys: { ...keys, ...over }, clearance: 'internal', createdAt: '2026-01-01T00:00:00.000Z' }) as never;

describe('PushSender: failures no retry can mend are final', () => {
  const vapid = webPush.generateVAPIDKeys();
  const sender = new PushSender({ publicKey: vapid.publicKey, privateKey: vapid.privateKey, subject: 'mailto:im@example.com' }, 2000, false);

  it('refuses a private address for good, as blocked_address (nothing is sent)', async () => {
    for (const endpoint of ['https://127.0.0.1:9/push', 'https://[::ffff:7f00:1]/push', 'https://[::127.0.0.1]/push', 'https://[::a00:1]/push']) {
      expect(await sender.send(subscription(endpoint), '{}', true, 'ntf_x')).toEqual({ result: 'failed', statusCode: null, error: 'blocked_address', final: true });
    }
  });

  it('gives up on keys nothing can be encrypted for (stored before they were checked)', async () => {
    const notAPoint = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    expect(await sender.send(subscription('https://push.example.com/x', { p256dh: notAPoint }), '{}', false, 'ntf_x')).toEqual({
      result: 'failed',
      statusCode: null,
      error: 'invalid_subscription_keys',
      final: true,
    });
  });
});

describe('PushSender: a push service that does not answer', () => {
  it('gives up after the timeout and says so (timeout, retried), whether or not the connection was made', async () => {
    const vapid = webPush.generateVAPIDKeys();
    const sender = new PushSender({ publicKey: vapid.publicKey, privateKey: vapid.privateKey, subject: 'mailto:im@example.com' }, 500, true);
    const listener = await neverAcceptingListener();
    // Accepts the connection, then says nothing (not even the TLS handshake).
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      for (const port of [listener.port, (silent.address() as AddressInfo).port]) {
        expect(await sender.send(subscription(`https://127.0.0.1:${port}/push`), '{}', true, 'ntf_x')).toEqual({ result: 'failed', statusCode: null, error: 'timeout' });
      }
    } finally {
      listener.close();
      silent.close();
    }
  });
});
