import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

/**
 * Registering webhooks as an administrator does (docs/api.md, "Webhooks"):
 * the registration API, its roles, the secret shown once and never stored in
 * clear, and the refusal of private addresses in any spelling.
 */
const ADMIN = bearer(token({ sub: 'hook-admin', roles: ['webhooks.admin'] }));
const NOT_ADMIN = bearer(token({ sub: 'rita', roles: ['timeline.reader', 'integrations.admin'] }));

describe('webhook registration (private networks refused, the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('registers, shows the secret once, lists and gets without it, removes: then 404', async () => {
    const created = await t
      .http()
      .post('/api/v1/webhooks')
      .set(ADMIN)
      .send({ url: 'https://hooks.example.com/im', event_types: ['im.incident.*', 'im.alert.trigger'], data_access: ['pii'], description: 'chat' })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      url: 'https://hooks.example.com/im',
      event_types: ['im.incident.*', 'im.alert.trigger'],
      clearance: 'internal',
      data_access: ['pii'],
      description: 'chat',
      enabled: true,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const { secret, ...shown } = created.body;
    expect((await t.http().get('/api/v1/webhooks').set(ADMIN).expect(200)).body).toEqual({ items: [shown] });
    expect((await t.http().get(`/api/v1/webhooks/${shown.id}`).set(ADMIN).expect(200)).body).toEqual(shown);

    // The ledger holds the registration, its secret only sealed.
    const ledger = await t.app.get<EventStore>(EVENT_STORE).readStream('webhooks');
    expect(ledger.map((r) => r.event.type)).toEqual(['im.webhook.registered']);
    expect(JSON.stringify(ledger.map((r) => r.event))).not.toContain(secret.slice('whsec_'.length));
    expect(ledger[0].event['im.actor']).toBe('hook-admin');

    await t.http().delete(`/api/v1/webhooks/${shown.id}`).set(ADMIN).expect(204);
    expect((await t.http().get(`/api/v1/webhooks/${shown.id}`).set(ADMIN).expect(404)).body).toEqual({ error: `Webhook ${shown.id} not found`, status: 404 });
    expect((await t.http().delete(`/api/v1/webhooks/${shown.id}`).set(ADMIN).expect(404)).body.status).toBe(404);
    expect((await t.http().get('/api/v1/webhooks').set(ADMIN).expect(200)).body).toEqual({ items: [] });
    expect((await t.app.get<EventStore>(EVENT_STORE).readStream('webhooks')).map((r) => r.event.type)).toEqual(['im.webhook.registered', 'im.webhook.removed']);
  });

  it('answers 401 without a token and 403 without webhooks.admin, on every route', async () => {
    const routes = [
      () => t.http().post('/api/v1/webhooks').send({ url: 'https://hooks.example.com/', event_types: ['*'] }),
      () => t.http().get('/api/v1/webhooks'),
      () => t.http().get('/api/v1/webhooks/0000000000000000'),
      () => t.http().delete('/api/v1/webhooks/0000000000000000'),
      () => t.http().get('/api/v1/webhooks/0000000000000000/deliveries'),
      () => t.http().post('/api/v1/webhooks/0000000000000000/deliveries/x/retry'),
    ];
    for (const route of routes) {
      expect((await route()).status).toBe(401);
      expect((await route().set(NOT_ADMIN)).status).toBe(403);
    }
  });

  it('refuses a registration that would read more than its admin (403, naming the rule) and records nothing', async () => {
    const publicAdmin = bearer(token({ sub: 'pat', roles: ['webhooks.admin'], clearance: 'public', data_access: [] }));
    const rule = 'a webhook is sent no more than the admin who registers it may read';
    const before = (await t.app.get<EventStore>(EVENT_STORE).readStream('webhooks')).length;
    const asked = { url: 'https://hooks.example.com/all', event_types: ['*'], clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'] };
    expect((await t.http().post('/api/v1/webhooks').set(publicAdmin).send(asked).expect(403)).body).toEqual({
      error: `clearance confidential ranks above your clearance (public): ${rule}`,
      status: 403,
    });
    expect((await t.http().post('/api/v1/webhooks').set(publicAdmin).send({ ...asked, clearance: 'public' }).expect(403)).body.error).toBe(
      `data_access pii, phi, legal_hold are not in your data_access (none): ${rule}`,
    );
    // The default (internal) is above a public admin too: it says so rather than quietly reading less.
    expect((await t.http().post('/api/v1/webhooks').set(publicAdmin).send({ url: asked.url, event_types: ['*'] }).expect(403)).body.error).toBe(
      `the default clearance internal ranks above your clearance (public): ${rule}`,
    );
    expect((await t.app.get<EventStore>(EVENT_STORE).readStream('webhooks')).length).toBe(before);
  });

  it('refuses a malformed registration with 400 and records nothing', async () => {
    const res = await t.http().post('/api/v1/webhooks').set(ADMIN).send({ url: 'ftp://hooks.example.com/', event_types: 'im.incident.*', clearance: 'top' }).expect(400);
    expect(res.body).toEqual({
      error: 'url must be an absolute http(s) URL; event_types is required and must list event types, each optionally ending in * (e.g. im.incident.*), or *; clearance must be one of public, internal, restricted, confidential',
      status: 400,
    });
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://2130706433/hook',
    'http://0x7f000001/hook',
    'http://0177.0.0.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://172.16.0.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://100.100.100.200/hook',
  ])('refuses %s with 400: loopback, private, link-local, unique-local and metadata addresses', async (url) => {
    const res = await t.http().post('/api/v1/webhooks').set(ADMIN).send({ url, event_types: ['*'] }).expect(400);
    expect(res.body.error).toMatch(/^url is refused: .* not a public address/);
    expect((await t.app.get<EventStore>(EVENT_STORE).readStream('webhooks')).filter((r) => r.event.type === 'im.webhook.registered')).toHaveLength(1);
  });
});

describe('what a webhooks admin reads of registrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('shows an admin no registration, and no delivery log, that reads more than the admin may (answers as unknown)', async () => {
    const confidential = (await t.http().post('/api/v1/webhooks').set(ADMIN).send({ url: 'https://hooks.example.com/secret', event_types: ['*'], clearance: 'confidential', data_access: ['pii'] }).expect(201)).body;
    const internalAdmin = bearer(token({ sub: 'ida', roles: ['webhooks.admin'], clearance: 'internal', data_access: ['pii'] }));
    const noPii = bearer(token({ sub: 'pia', roles: ['webhooks.admin'], clearance: 'confidential', data_access: [] }));
    for (const admin of [internalAdmin, noPii]) {
      expect((await t.http().get('/api/v1/webhooks').set(admin).expect(200)).body.items.map((hook: { id: string }) => hook.id)).not.toContain(confidential.id);
      for (const path of [`/api/v1/webhooks/${confidential.id}`, `/api/v1/webhooks/${confidential.id}/deliveries`]) {
        expect((await t.http().get(path).set(admin).expect(404)).body).toEqual({ error: `Webhook ${confidential.id} not found`, status: 404 });
      }
      await t.http().post(`/api/v1/webhooks/${confidential.id}/deliveries/any/retry`).set(admin).expect(404);
    }
    const cleared = bearer(token({ sub: 'cy', roles: ['webhooks.admin'], clearance: 'confidential', data_access: ['pii'] }));
    expect((await t.http().get(`/api/v1/webhooks/${confidential.id}`).set(cleared).expect(200)).body.id).toBe(confidential.id);
    await t.http().delete(`/api/v1/webhooks/${confidential.id}`).set(ADMIN).expect(204);
  });
});
