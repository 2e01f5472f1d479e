import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Deliveries as a receiver sees them (extensions.md section 4): real HTTP
 * endpoints in this process, each delivery verified with `standardwebhooks`.
 * Private networks are allowed here (the receivers are on loopback); the
 * refusal is tested in webhooks.e2e.spec.ts and webhook-sender.spec.ts.
 */
const ADMIN = bearer(token({ sub: 'hook-admin', roles: ['webhooks.admin'] }));
const WRITER = bearer(token({ sub: 'alice', roles: ['timeline.writer', 'timeline.reader'], clearance: 'confidential', data_access: ['pii'] }));

describe('webhook delivery', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_INITIAL_MS: '200', WEBHOOK_TIMEOUT_MS: '30000' });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  const receiver = async (answer?: ConstructorParameters<typeof WebhookReceiver>[0]) => {
    const r = new WebhookReceiver(answer);
    receivers.push(r);
    return { receiver: r, url: await r.start() };
  };
  const register = async (r: WebhookReceiver, url: string, body: object = {}) => {
    const res = await t.http().post('/api/v1/webhooks').set(ADMIN).send({ url, event_types: ['im.incident.*'], ...body }).expect(201);
    r.secret = res.body.secret;
    return res.body as { id: string; secret: string };
  };
  const declare = async (title = 'Checkout down', extra: object = {}) =>
    (await t.http().post('/api/v1/incidents').set(WRITER).send({ title, severity: 'SEV-2', ...extra }).expect(201)).body.id as string;
  const note = async (incidentId: string, content: string, extra: object = {}) =>
    (
      await t
        .http()
        .post('/api/v1/timeline/events')
        .set({ ...WRITER, 'content-type': 'application/cloudevents+json' })
        .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://test', type: 'im.incident.note', subject: `incident/${incidentId}`, time: new Date().toISOString(), 'im.actor': 'alice', data: { content }, ...extra }))
        .expect(201)
    ).body as { event_id: string };

  it('posts each event signed per Standard Webhooks: the stored CloudEvent, structured, with the append answer id and seed attribute names', async () => {
    const { receiver: r, url } = await receiver();
    await register(r, url);
    const incidentId = await declare();
    const appended = await note(incidentId, 'Rolled back the deploy');
    await r.waitFor(() => r.received.some((x) => x.event?.id === appended.event_id));
    const delivery = r.received.find((x) => x.event?.id === appended.event_id)!;
    expect(delivery.verifyError).toBeUndefined();
    expect(delivery.headers['content-type']).toBe('application/cloudevents+json');
    expect(delivery.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
    expect(Number(delivery.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(delivery.event).toMatchObject({ specversion: '1.0', id: appended.event_id, type: 'im.incident.note', 'im.actor': 'alice', data: { content: 'Rolled back the deploy' } });
    expect(r.received.every((x) => x.verifyError === undefined)).toBe(true);
  });
});
