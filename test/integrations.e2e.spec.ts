import { randomUUID } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { INCIDENT_QUERIES, type IncidentQueries } from '@im/read-models';
import firing from './fixtures/alertmanager-firing.json';
import { grafanaFiring, grafanaResolved } from './fixtures/grafana-webhook';
import { type Alertmanager, alertmanagerSkipReason, startAlertmanager } from './support/alertmanager';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * The alert receivers (docs/api.md, "Alert sources"): Grafana's cited payload posted
 * as Grafana sends it, and a real Prometheus Alertmanager pointed at the
 * running service with an integration key (created through the API, as an
 * operator would) as its bearer credential.
 */

const WRITER = token({ sub: 'monitoring', roles: ['timeline.writer'] });
const AUTH = bearer(token({ sub: 'alice' }));
const RFC3339_UTC_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let store: EventStore;
/** While set, every append to the ledger fails with this SQLite error code (a storage fault the test switches). */
let storageFails: string | undefined;

beforeAll(async () => {
  // The webhook receiver of the Alertmanager tests listens on loopback.
  t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  store = t.app.get<EventStore>(EVENT_STORE);
  const append = store.append.bind(store);
  const appendMulti = store.appendMulti.bind(store);
  const fault = () => Promise.reject(Object.assign(new Error('storage fault'), { code: storageFails }));
  store.append = (...args) => (storageFails ? fault() : append(...args));
  // An alert that opens an incident is appended with its fingerprint's claim, in one appendMulti.
  store.appendMulti = (...args) => (storageFails ? fault() : appendMulti(...args));
  await t.app.listen(0, '127.0.0.1');
});
afterAll(() => t.close());

const post = (sender: 'alertmanager' | 'grafana', body: unknown, headers: Record<string, string> = bearer(WRITER)) =>
  t.http().post(`/api/v1/integrations/${sender}`).set(headers).send(body as object);
const incident = async (id: string) => (await t.http().get(`/api/v1/incidents/${id}`).set(AUTH).expect(200)).body;
const alertEvents = async (id: string) =>
  ((await t.http().get(`/api/v1/incidents/${id}/timeline?type=im.alert.*&order=asc`).set(AUTH).expect(200)).body.events as { event_type: string; data: Record<string, unknown> }[]);
/** The incident read model's services (the REST Incident does not show them). */
const servicesOf = async (id: string) => (await t.app.get<IncidentQueries>(INCIDENT_QUERIES).findById(id))?.services;
const incidentTitled = async (title: string) =>
  ((await t.http().get('/api/v1/incidents?limit=100').set(AUTH).expect(200)).body as { id: string; title: string }[]).filter((i) => i.title === title);

describe('POST /api/v1/integrations/grafana', () => {
  it("opens an incident from Grafana's firing alert, answers a re-send as a duplicate, and counts the alert out when it resolves (the incident stays open)", async () => {
    const fired = await post('grafana', grafanaFiring).expect(200);
    expect(fired.body).toEqual({ results: [{ index: 0, status: 201, event_id: expect.any(String), created: true, incident_id: expect.stringMatching(/^INC-/) }] });
    const id = fired.body.results[0].incident_id;
    expect(await incident(id)).toEqual(
      expect.objectContaining({ title: 'Checkout p99 latency above 2 s in eu-west-1', severity: 'SEV-2', status: 'open', alerts_firing: 1, created_at: expect.stringMatching(RFC3339_UTC_FRACTION) }),
    );
    const again = await post('grafana', grafanaFiring).expect(200);
    expect(again.body.results).toEqual([{ index: 0, status: 200, event_id: fired.body.results[0].event_id, created: false, incident_id: id }]);

    const resolved = await post('grafana', grafanaResolved).expect(200);
    expect(resolved.body.results).toEqual([expect.objectContaining({ status: 201, incident_id: id })]);
    expect(await incident(id)).toEqual(expect.objectContaining({ status: 'open', alerts_firing: 0 }));
    const events = await alertEvents(id);
    expect(events.map((e) => e.event_type)).toEqual(['im.alert.trigger', 'im.alert.resolve']);
    expect(events[0].data).toEqual(
      expect.objectContaining({
        service: 'checkout',
        labels: grafanaFiring.alerts[0].labels,
        annotations: expect.objectContaining({ runbook_url: 'https://runbooks.example/checkout-latency' }),
        generatorURL: grafanaFiring.alerts[0].generatorURL,
        startsAt: '2024-06-04T09:51:03.157076+02:00',
        endsAt: '0001-01-01T00:00:00Z',
      }),
    );

    expect(events[0].data).not.toHaveProperty('services');
    expect(await servicesOf(id)).toEqual(['checkout']);

    const mobile = await t.http().post('/api/v1/graphql').set(AUTH).send({ query: `{ incidentStatus(id: "${id}") { alertsFiring } }` }).expect(200);
    expect(mobile.body).toEqual({ data: { incidentStatus: { alertsFiring: 0 } } });
  });
});

describe('alert events stored before data.service', () => {
  it('are read as stored (data.services: [name]): the incident takes the service, the timeline shows the event unchanged and the ledger verifies', async () => {
    // What the receiver stored before: the service as a list of one.
    const data = { title: 'Legacy alert', severity: 'SEV-2', services: ['legacy'], labels: { alertname: 'Legacy', job: 'legacy' }, annotations: {}, generatorURL: 'http://prometheus.example/graph', startsAt: '2026-11-20T10:00:00Z', endsAt: '0001-01-01T00:00:00Z' };
    const event = { specversion: '1.0', id: randomUUID(), source: 'im://alertmanager/incident-service', type: 'im.alert.trigger', time: '2026-11-20T10:00:00Z', 'im.fingerprint': 'legacy-1', 'im.origin_id': 'legacy-1@2026-11-20T10:00:00Z', data };
    const stored = await t.http().post('/api/v1/timeline/events').set({ ...bearer(WRITER), 'content-type': 'application/cloudevents+json' }).send(JSON.stringify(event)).expect(201);
    const id = stored.body.incident_id;
    expect(await servicesOf(id)).toEqual(['legacy']);
    const { title: _title, ...shown } = data; // a timeline entry shows the title beside its data
    expect((await alertEvents(id)).map((e) => e.data)).toEqual([shown]);
    const auditor = bearer(token({ sub: 'auditor', roles: ['timeline.exporter'], clearance: 'internal' }));
    expect((await t.http().get(`/api/v1/incidents/${id}/timeline/verify`).set(auditor).expect(200)).body).toMatchObject({ intact: true });
  });
});

describe('POST /api/v1/integrations/alertmanager', () => {
  it('stores each alert of a mixed payload by its own status; a resolution of an alert that opened no incident is ignored and stores nothing', async () => {
    const [db1, db2] = firing.alerts.map((a) => ({ ...a, fingerprint: `mixed-${a.fingerprint}` }));
    const mixed = { ...firing, alerts: [db1, { ...db2, status: 'resolved', endsAt: '2026-11-23T14:35:00Z' }] };
    const res = await post('alertmanager', mixed).expect(200);
    expect(res.body.results).toEqual([
      { index: 0, status: 201, event_id: expect.any(String), created: true, incident_id: expect.stringMatching(/^INC-/) },
      { index: 1, status: 200, ignored: true, reason: `No incident has joined fingerprint ${db2.fingerprint}: the resolution of an alert that opened no incident is not recorded` },
    ]);
    const id = res.body.results[0].incident_id;
    expect(await incident(id)).toEqual(expect.objectContaining({ title: 'Disk almost full on db-1:9100', severity: 'SEV-1', alerts_firing: 1 }));
    expect((await alertEvents(id)).map((e) => e.event_type)).toEqual(['im.alert.trigger']);
  });

  it('refuses a body that is not an Alertmanager payload with 400 {error, status}, and a caller without timeline.writer', async () => {
    const bad = await post('alertmanager', { ...firing, version: '3' }).expect(400);
    expect(bad.body).toEqual({ status: 400, error: 'Not an Alertmanager webhook payload (version 4): version must be "4"' });
    await post('alertmanager', firing, {}).expect(401);
    await post('alertmanager', firing, bearer(token({ sub: 'reader', roles: ['timeline.reader'] }))).expect(403);
  });

  it.each([
    ['cannot be written', 'SQLITE_IOERR_WRITE', 'cannot be read or written'],
    ['is full (507 elsewhere)', 'SQLITE_FULL', 'is full'],
  ])('answers 503 with Retry-After, never 429, while the ledger %s; the payload sent again is stored once', async (_, code, what) => {
    const alerts = firing.alerts.map((a) => ({ ...a, fingerprint: `${code}-${a.fingerprint}` }));
    storageFails = code;
    try {
      const refused = await post('alertmanager', { ...firing, alerts }).expect(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.body).toEqual({ status: 503, error: expect.stringContaining(`The server's storage ${what} (${code})`) });
    } finally {
      storageFails = undefined;
    }
    const stored = await post('alertmanager', { ...firing, alerts }).expect(200);
    expect(stored.body.results.map((r: { status: number }) => r.status)).toEqual([201, 201]);
  });
});

const skip = alertmanagerSkipReason();
if (skip) console.info(`integrations.e2e: the real Alertmanager tests are ${skip}`);

(skip ? describe.skip : describe)('a real Prometheus Alertmanager pointed at the service', () => {
  let am: Alertmanager;
  let keyId: string;
  const hook = new WebhookReceiver();
  beforeAll(async () => {
    const registered = await t
      .http()
      .post('/api/v1/webhooks')
      .set(bearer(token({ sub: 'hook-admin', roles: ['webhooks.admin'] })))
      .send({ url: await hook.start(), event_types: ['im.alert.*'] })
      .expect(201);
    hook.secret = registered.body.secret;
    const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    const admin = bearer(token({ sub: 'ops-admin', roles: ['integrations.admin'] }));
    const created = await t.http().post('/api/v1/integration-keys').set(admin).send({ name: 'alertmanager', roles: ['timeline.writer'] }).expect(201);
    keyId = created.body.id;
    am = await startAlertmanager({ webhookUrl: `${url}/api/v1/integrations/alertmanager`, bearer: created.body.key, receiver: 'incident-service', groupBy: ['alertname'] });
  });
  afterAll(async () => {
    await am?.stop();
    await hook.close();
  });

  const labels = { alertname: 'CertExpiry', severity: 'warning', service: 'edge', instance: 'lb-1' };

  it('opens the incident (title, severity, service), takes the re-send after group_interval as a duplicate, and records the resolution without resolving the incident', async () => {
    await am.fire([{ labels, annotations: { summary: 'Certificate of lb-1 expires in 3 days' }, generatorURL: 'http://prometheus.example/graph?g0.expr=cert&x=1' }]);
    await am.waitForMetrics((m) => m.notifications >= 1 && m.requests >= 1);
    let found: { id: string }[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++, await sleep(100)) found = await incidentTitled('Certificate of lb-1 expires in 3 days');
    expect(found).toHaveLength(1);
    const id = found[0].id;
    expect(await incident(id)).toEqual(expect.objectContaining({ severity: 'SEV-3', status: 'open', alerts_firing: 1 }));

    // The group is sent again (repeat_interval 2 s, group_interval 1 s): the same alert, answered as a duplicate.
    const before = await am.metrics();
    await am.waitForMetrics((m) => m.requests >= before.requests + 1 && m.requestsFailed === 0);
    const triggers = await alertEvents(id);
    expect(triggers.map((e) => [e.event_type, e.data.service])).toEqual([['im.alert.trigger', 'edge']]);
    expect(triggers[0].data).not.toHaveProperty('services');
    expect(await servicesOf(id)).toEqual(['edge']);
    // A webhook consumer gets the same one string, in the signed CloudEvent.
    const eventId = (triggers[0] as unknown as { id: string }).id;
    await hook.waitFor(() => hook.received.some((r) => r.event?.id === eventId));
    const delivered = hook.received.find((r) => r.event?.id === eventId)!;
    expect(delivered.verifyError).toBeUndefined();
    expect(delivered.event).toMatchObject({ type: 'im.alert.trigger', data: { service: 'edge', labels } });
    expect(delivered.event!.data).not.toHaveProperty('services');
    // The timeline names the integration that wrote the alert.
    expect((triggers[0] as unknown as { actor: string }).actor).toBe(`integration:${keyId}`);

    await am.resolve([labels]);
    let view = await incident(id);
    for (let i = 0; i < 100 && view.alerts_firing !== 0; i++, await sleep(100)) view = await incident(id);
    expect(view).toEqual(expect.objectContaining({ status: 'open', alerts_firing: 0 }));
    expect((await alertEvents(id)).map((e) => e.event_type)).toEqual(['im.alert.trigger', 'im.alert.resolve']);
    expect((await am.metrics()).failed).toBe(0);
  }, 60_000);

  it('retries a 503 (storage failing) until the service takes the alert, which is stored once', async () => {
    const before = await am.metrics();
    storageFails = 'SQLITE_IOERR_WRITE';
    try {
      await am.fire([{ labels: { alertname: 'QueueBacklog', severity: 'critical', job: 'worker' } }]);
      await am.waitForMetrics((m) => m.requestsFailed >= before.requestsFailed + 2);
    } finally {
      storageFails = undefined;
    }
    const after = await am.waitForMetrics((m) => m.requests - m.requestsFailed > before.requests - before.requestsFailed, 30_000);
    expect(after.requestsFailed).toBeGreaterThanOrEqual(before.requestsFailed + 2);
    const [opened] = await incidentTitled('QueueBacklog');
    expect(await incident(opened.id)).toEqual(expect.objectContaining({ severity: 'SEV-1', alerts_firing: 1 }));
    expect((await alertEvents(opened.id)).map((e) => [e.event_type, e.data.service])).toEqual([['im.alert.trigger', 'worker']]);
  }, 60_000);
});
