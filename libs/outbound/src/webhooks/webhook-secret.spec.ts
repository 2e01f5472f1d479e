import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, openWebhookSecret, sealWebhookSecret, signWebhook, webhookKey } from './webhook-secret';

describe('webhook secrets', () => {
  const key = Buffer.alloc(32, 7);

  it('is whsec_ and the base64 of 24 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('is kept sealed: the sealed text hides it and opens only for its own registration and key', () => {
    const secret = newWebhookSecret();
    const sealed = sealWebhookSecret(key, 'wh1', secret);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openWebhookSecret(key, 'wh1', sealed)).toBe(secret);
    expect(openWebhookSecret(key, 'wh2', sealed)).toBeUndefined();
    expect(openWebhookSecret(Buffer.alloc(32, 8), 'wh1', sealed)).toBeUndefined();
    expect(openWebhookSecret(key, 'wh1', 'garbage')).toBeUndefined();
  });

  it('signs as the Standard Webhooks reference library does, and that library verifies it', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ id: 'e1', type: 'im.incident.note' });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signWebhook(webhookKey(secret), 'msg_1', timestamp, body);
    const reference = new Webhook(secret);
    expect(signature).toBe(reference.sign('msg_1', new Date(timestamp * 1000), body));
    expect(reference.verify(body, { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature })).toEqual(JSON.parse(body));
  });
});
