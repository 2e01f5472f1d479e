import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Deliveries as a receiver sees them (docs/api.md, "Webhooks"): real HTTP
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

  const deliveries = async (id: string) => (await t.http().get(`/api/v1/webhooks/${id}/deliveries`).set(ADMIN).expect(200)).body.items as {
    id: string;
    event_id: string;
    webhook_id: string;
    attempt: number;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
  }[];

  it('retries a failing endpoint with backoff, keeps ledger order once it recovers, and logs every attempt', async () => {
    // Fails the first three requests, then recovers.
    const { receiver: r, url } = await receiver((n) => (n < 3 ? 503 : 204));
    const { id } = await register(r, url);
    const incidentId = await declare('Payments degraded');
    const notes: string[] = [];
    for (let i = 0; i < 5; i += 1) notes.push((await note(incidentId, `step ${i}`)).event_id);
    await r.waitFor(() => notes.every((eventId) => r.delivered((n) => n >= 3).some((x) => x.event?.id === eventId)));
    const succeeded = r.delivered((n) => n >= 3).map((x) => x.event!.id);
    // In ledger order (the declare first), each once: the failures all concerned the first event.
    expect(succeeded.filter((eventId) => notes.includes(eventId))).toEqual(notes);
    expect(new Set(r.received.slice(0, 4).map((x) => x.headers['webhook-id'])).size).toBe(1);
    await r.waitFor(() => false, 300).catch(() => undefined);
    const log = await deliveries(id);
    const first = log.filter((d) => d.webhook_id === r.received[0].headers['webhook-id']).reverse();
    expect(first.map((d) => [d.attempt, d.status_code, d.error])).toEqual([
      [1, 503, 'unsuccessful_status'],
      [2, 503, 'unsuccessful_status'],
      [3, 503, 'unsuccessful_status'],
      [4, 204, null],
    ]);
  });

  it('never lets a hanging endpoint delay another', async () => {
    const { receiver: hanging, url: hangingUrl } = await receiver(() => 'hang');
    const { receiver: healthy, url } = await receiver();
    await register(hanging, hangingUrl);
    await register(healthy, url);
    const incidentId = await declare('Hanging receiver');
    const started = Date.now();
    const notes: string[] = [];
    for (let i = 0; i < 10; i += 1) notes.push((await note(incidentId, `note ${i}`)).event_id);
    await healthy.waitFor(() => notes.every((eventId) => healthy.received.some((x) => x.event?.id === eventId)), 5000);
    // The hanging endpoint still holds its first request (the timeout here is 30 s).
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hanging.received).toHaveLength(1);
  });

  it('delivers redacted at the registration clearance and data access: a pii note redacted without pii, a confidential event not at all to internal', async () => {
    const { receiver: internal, url: internalUrl } = await receiver();
    const { receiver: cleared, url: clearedUrl } = await receiver();
    await register(internal, internalUrl);
    await register(cleared, clearedUrl, { clearance: 'confidential', data_access: ['pii'] });
    const incidentId = await declare('Customer data incident');
    const pii = await note(incidentId, 'Customer jane@example.com called', { 'im.data_class': ['pii'] });
    const secret = await note(incidentId, 'Board informed', { 'im.visibility': 'confidential' });
    const last = await note(incidentId, 'All clear');
    await Promise.all([internal, cleared].map((r) => r.waitFor(() => r.received.some((x) => x.event?.id === last.event_id))));
    const of = (r: WebhookReceiver, eventId: string) => r.received.find((x) => x.event?.id === eventId)?.event;

    // The payload's data records who sent the event (docs/security.md, "Who wrote an event"), hidden where the actor is.
    expect(of(cleared, pii.event_id)).toMatchObject({ data: { content: 'Customer jane@example.com called', 'im.sender': 'alice' }, 'im.actor': 'alice' });
    expect(of(internal, pii.event_id)).toMatchObject({ data: { content: '[REDACTED]', 'im.sender': '[REDACTED]' }, 'im.actor': '[REDACTED]', 'im.redacted': expect.arrayContaining(['content', 'sender']) });
    expect(internal.received.map((x) => x.body).join()).not.toContain('jane@example.com');

    expect(of(cleared, secret.event_id)).toMatchObject({ data: { content: 'Board informed' } });
    expect(of(internal, secret.event_id)).toBeUndefined();
  });

  it('sends only the types asked for, no history, and nothing after removal', async () => {
    const before = await declare('Before the registration');
    const { receiver: r, url } = await receiver();
    const { id } = await register(r, url, { event_types: ['im.incident.note'] });
    await note(before, 'after registration, on an older incident');
    const declared = await declare('Declared after');
    const last = await note(declared, 'last');
    await r.waitFor(() => r.received.some((x) => x.event?.id === last.event_id));
    expect(r.received.map((x) => x.event?.type)).toEqual(['im.incident.note', 'im.incident.note']);
    await t.http().delete(`/api/v1/webhooks/${id}`).set(ADMIN).expect(204);
    await note(declared, 'after removal');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(2);
  });

  it('disables a registration whose endpoint answers 410, and sends it nothing more', async () => {
    const { receiver: r, url } = await receiver(() => 410);
    const { id } = await register(r, url);
    const incidentId = await declare('Gone receiver');
    await r.waitFor(() => r.received.length >= 1);
    await r.waitFor(() => false, 500).catch(() => undefined);
    expect((await t.http().get(`/api/v1/webhooks/${id}`).set(ADMIN).expect(200)).body.enabled).toBe(false);
    await note(incidentId, 'nobody listens');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(1);
    expect((await deliveries(id)).map((d) => [d.status_code, d.error])).toEqual([[410, 'unsuccessful_status']]);
  });

  it('re-sends a delivery on request (202) with the same webhook-id, counted as the next attempt', async () => {
    const { receiver: r, url } = await receiver();
    const { id } = await register(r, url);
    const incidentId = await declare('Re-send me');
    await r.waitFor(() => r.received.length === 1);
    let log: Awaited<ReturnType<typeof deliveries>> = [];
    await r.waitFor(() => false, 300).catch(() => undefined);
    log = await deliveries(id);
    expect(log).toEqual([{ id: expect.any(String), event_id: expect.any(String), webhook_id: r.received[0].headers['webhook-id'], attempt: 1, attempted_at: expect.any(String), status_code: 204, error: null, duration_ms: expect.any(Number) }]);
    await t.http().post(`/api/v1/webhooks/${id}/deliveries/${log[0].id}/retry`).set(ADMIN).expect(202);
    await r.waitFor(() => r.received.length === 2);
    expect(r.received[1].headers['webhook-id']).toBe(r.received[0].headers['webhook-id']);
    expect(r.received[1].event).toEqual(r.received[0].event);
    expect(r.received[1].event?.subject).toBe(`incident/${incidentId}`);
    await r.waitFor(() => false, 300).catch(() => undefined);
    expect((await deliveries(id)).map((d) => d.attempt)).toEqual([2, 1]);
    expect((await t.http().post(`/api/v1/webhooks/${id}/deliveries/nope/retry`).set(ADMIN).expect(404)).body).toEqual({ error: `Delivery nope of webhook ${id} not found`, status: 404 });
  });
});
