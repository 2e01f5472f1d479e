import { EVENT_STORE, type EventStore } from '@im/event-store';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { ALERT_RECORDER, EscalationsDue, HeartbeatsDue, TimerRunner } from '@im/paging';
import { ONCALL_QUERIES, PROJECTION_PROGRESS } from '@im/read-models';
import { CLOCK, type Clock, CommandHandler, ID_GENERATOR, READ_YOUR_WRITES } from '@im/write-path';
import { ServiceAssignments } from '@im/paging';
import { TimelineAppendHandler } from '@im/timeline-append';
import { RetryPolicy } from '../libs/write-path/src/retry-policy';
import { type Alertmanager, alertmanagerSkipReason, startAlertmanager } from './support/alertmanager';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

jest.setTimeout(90_000);

/**
 * Heartbeats (docs/api.md, "Heartbeats"): configuration through REST, pings
 * by a service's integration key, a missed deadline opening (and paging) an
 * incident of the service as an alert would, the next ping resolving its
 * alert, two runners recording a miss once, and a real Alertmanager's
 * Watchdog keeping a heartbeat ok. The injected clock is moved on instead of
 * waiting for intervals.
 */
const ADMIN = bearer(token({ sub: 'ops-admin', roles: ['oncall.admin', 'integrations.admin'] }));
const ALICE = bearer(token({ sub: 'alice' }));

let t: TestApp;
let offset = 0;
/** The injected clock runs `offset` ahead of the wall clock: moving it on makes intervals pass. */
const advance = (seconds: number) => (offset += seconds * 1000);
const get = <T>(token: unknown) => t.app.get<T>(token as string);

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(get<Clock>(CLOCK), 'now').mockImplementation(() => new Date(Date.now() + offset));
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

let names = 0;
const unique = (name: string) => `${name} ${++names}`;
const post = (path: string, body: object, as = ADMIN) => t.http().post(path).set(as).send(body);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await sleep(100);
  }
}

interface Heartbeat {
  id: string;
  name: string;
  interval_seconds: number;
  service_id: string;
  last_ping_at: string | null;
  status: string;
}
interface TimelineEvent {
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
}

const service = async (policyId: string | null = null) =>
  (await post('/api/v1/services', { name: unique('Checkout'), escalation_policy_id: policyId }).expect(201)).body as { id: string; name: string };
const keyOf = async (serviceId: string | null) =>
  (await post('/api/v1/integration-keys', { name: unique('prometheus'), roles: ['timeline.writer'], ...(serviceId === null ? {} : { service_id: serviceId }) }).expect(201)).body.key as string;
const heartbeat = async (serviceId: string, intervalSeconds = 60) =>
  (await post('/api/v1/heartbeats', { name: unique('Watchdog'), interval_seconds: intervalSeconds, service_id: serviceId }).expect(201)).body as Heartbeat;
const read = async (id: string) => (await t.http().get(`/api/v1/heartbeats/${id}`).set(ALICE).expect(200)).body as Heartbeat;
const ping = (id: string, as: Record<string, string>, body?: object) => {
  const request = t.http().post(`/api/v1/heartbeats/${id}/ping`).set(as);
  return body === undefined ? request : request.send(body);
};
const incidentsTitled = async (title: string) =>
  ((await t.http().get('/api/v1/incidents?limit=100').set(ALICE).expect(200)).body as { id: string; title: string }[]).filter((i) => i.title === title);
const incident = async (id: string) => (await t.http().get(`/api/v1/incidents/${id}`).set(ALICE).expect(200)).body;
const timeline = async (id: string, type: string) =>
  ((await t.http().get(`/api/v1/incidents/${id}/timeline?type=${type}&order=asc`).set(ALICE).expect(200)).body.events as TimelineEvent[]);
/** The incident a heartbeat's miss opened, once the timers have recorded it. */
const missedIncident = async (hb: Heartbeat) => (await waitFor(() => incidentsTitled(`Heartbeat ${hb.name} missed`), (found) => found.length > 0))[0];

describe('heartbeats through REST', () => {
  it('creates one (201, waiting), reads it and lists it, deletes it (204, then 404)', async () => {
    const svc = await service();
    const name = unique('Watchdog');
    const created = await post('/api/v1/heartbeats', { name: ` ${name} `, interval_seconds: 300, service_id: svc.id }).expect(201);
    expect(created.body).toEqual({ id: expect.any(String), name, interval_seconds: 300, service_id: svc.id, last_ping_at: null, status: 'waiting' });
    expect(await read(created.body.id)).toEqual(created.body);
    expect((await t.http().get('/api/v1/heartbeats').set(ALICE).expect(200)).body.items).toContainEqual(created.body);
    await t.http().delete(`/api/v1/heartbeats/${created.body.id}`).set(ADMIN).expect(204);
    expectError(await t.http().get(`/api/v1/heartbeats/${created.body.id}`).set(ALICE), 404, `Heartbeat ${created.body.id} not found`);
    expectError(await t.http().delete(`/api/v1/heartbeats/${created.body.id}`).set(ADMIN), 404, `Heartbeat ${created.body.id} not found`);
  });

  it('refuses a missing name, an interval out of 10..86400 and an unknown service (400), and writes without oncall.admin (403)', async () => {
    const svc = await service();
    expectError(await post('/api/v1/heartbeats', { interval_seconds: 60, service_id: svc.id }), 400, 'name is required and must be a string');
    expectError(await post('/api/v1/heartbeats', { name: 'x', interval_seconds: 9, service_id: svc.id }), 400, 'interval_seconds must be an integer from 10 to 86400');
    expectError(await post('/api/v1/heartbeats', { name: 'x', interval_seconds: 86_401, service_id: svc.id }), 400, 'interval_seconds must be an integer from 10 to 86400');
    expectError(await post('/api/v1/heartbeats', { name: 'x', interval_seconds: 60, service_id: 'nope' }), 400, 'service_id: service nope not found');
    expectError(await post('/api/v1/heartbeats', { name: 'x', interval_seconds: 60, service_id: svc.id }, ALICE), 403, 'This needs the oncall.admin role');
    const hb = await heartbeat(svc.id);
    expectError(await t.http().delete(`/api/v1/heartbeats/${hb.id}`).set(ALICE), 403, 'This needs the oncall.admin role');
  });

  it('keeps a service a heartbeat names from being deleted (409) until the heartbeat is', async () => {
    const svc = await service();
    const hb = await heartbeat(svc.id);
    expectError(await t.http().delete(`/api/v1/services/${svc.id}`).set(ADMIN), 409, `Service ${svc.id} is the service of heartbeat ${hb.name} (${hb.id})`);
    await t.http().delete(`/api/v1/heartbeats/${hb.id}`).set(ADMIN).expect(204);
    await t.http().delete(`/api/v1/services/${svc.id}`).set(ADMIN).expect(204);
  });
});

describe('pings', () => {
  it('takes a ping with a key of the heartbeat’s service or oncall.admin (202, ok), refuses other keys and tokens (403), and records each ping in the ledger', async () => {
    const svc = await service();
    const hb = await heartbeat(svc.id);
    const key = await keyOf(svc.id);
    const pinged = await ping(hb.id, bearer(key)).expect(202);
    expect(pinged.body).toEqual({ ...hb, last_ping_at: expect.any(String), status: 'ok' });
    expect(await read(hb.id)).toEqual(pinged.body);

    const refusal = `Heartbeat ${hb.id} is pinged only with an integration key of its service (${svc.id}) or with the oncall.admin role`;
    expectError(await ping(hb.id, bearer(await keyOf((await service()).id))), 403, refusal);
    expectError(await ping(hb.id, bearer(await keyOf(null))), 403, refusal);
    expectError(await ping(hb.id, ALICE), 403, refusal);
    await ping(hb.id, ADMIN, {}).expect(202);
    expectError(await ping('nope', ADMIN), 404, 'Heartbeat nope not found');

    const pings = await get<EventStore>(EVENT_STORE).readStream(`heartbeat-${hb.id}`);
    expect(pings.map(({ event }) => [event.type, event['im.actor']])).toEqual([
      ['im.heartbeat.ping', expect.stringMatching(/^integration:/)],
      ['im.heartbeat.ping', 'ops-admin'],
    ]);
  });

  it('does not count an Alertmanager payload whose status is resolved (200, unchanged)', async () => {
    const svc = await service();
    const hb = await heartbeat(svc.id);
    const key = bearer(await keyOf(svc.id));
    const resolved = await ping(hb.id, key, { version: '4', status: 'resolved', receiver: 'heartbeat', alerts: [{ status: 'resolved', labels: { alertname: 'Watchdog' } }] }).expect(200);
    expect(resolved.body.status).toBe('waiting');
    expectError(await ping(hb.id, key, [1]), 400, 'Request body must be a JSON object');
  });
});

describe('a missed heartbeat', () => {
  it('opens an incident of its service as an alert would, which pages by its policy; the next ping resolves the alert and the heartbeat is ok', async () => {
    const policy = (await post('/api/v1/escalation-policies', { name: unique('Policy'), steps: [{ delay_seconds: 300, targets: [{ type: 'user', id: 'ann' }] }] }).expect(201)).body;
    const svc = await service(policy.id);
    const hb = await heartbeat(svc.id, 10);
    const key = bearer(await keyOf(svc.id));
    await ping(hb.id, key).expect(202);
    advance(11);
    expect((await read(hb.id)).status).toBe('overdue');

    const { id } = await missedIncident(hb);
    expect(await incident(id)).toEqual(expect.objectContaining({ severity: 'SEV-2', status: 'open', alerts_firing: 1, service: { id: svc.id, name: svc.name } }));
    const [trigger] = await timeline(id, 'im.alert.trigger');
    expect(trigger).toEqual(expect.objectContaining({ actor: 'system:heartbeat', title: `Heartbeat ${hb.name} missed`, data: expect.objectContaining({ severity: 'SEV-2', service: svc.id, heartbeat_id: hb.id }) }));
    const pages = await waitFor(() => timeline(id, 'im.paging.page'), (events) => events.length > 0);
    expect(pages.map(({ data }) => data.paged)).toEqual([[{ user: 'ann', via: 'user' }]]);

    const pinged = await ping(hb.id, key).expect(202);
    expect(pinged.body.status).toBe('ok');
    expect(await incident(id)).toEqual(expect.objectContaining({ alerts_firing: 0, status: 'open' }));
    const alerts = await timeline(id, 'im.alert.*');
    expect(alerts.map((e) => [e.event_type, e.actor])).toEqual([['im.alert.trigger', 'system:heartbeat'], ['im.alert.resolve', 'system:heartbeat']]);
    // A later ping finds nothing firing: nothing more on the incident.
    await ping(hb.id, key).expect(202);
    expect(await timeline(id, 'im.alert.*')).toHaveLength(2);

    // Missed again: the alert fires again on the same (still unresolved) incident.
    advance(11);
    await waitFor(() => timeline(id, 'im.alert.*'), (events) => events.length === 3);
    expect(await incident(id)).toEqual(expect.objectContaining({ alerts_firing: 1 }));
    expect(await incidentsTitled(`Heartbeat ${hb.name} missed`)).toHaveLength(1);
  });

  it('is recorded once when two runners find it', async () => {
    // A runner of its own: its own write path (cache, queue, alert handler), as another process has, on the same ledger and read models.
    const clock = get<Clock>(CLOCK);
    const commands = new CommandHandler(get<EventStore>(EVENT_STORE), clock, new RetryPolicy(clock), get(ID_GENERATOR), get(READ_YOUR_WRITES));
    const alerts = new TimelineAppendHandler(get(EVENT_STORE), commands, clock, get(ID_GENERATOR), get(ServiceAssignments));
    const second = new TimerRunner(get<AppConfig>(APP_CONFIG), get(EVENT_STORE), get(PROJECTION_PROGRESS), clock, get(EscalationsDue), new HeartbeatsDue(get(ONCALL_QUERIES), get(ID_GENERATOR), alerts));
    const first = get<TimerRunner>(TimerRunner);
    expect(get(ALERT_RECORDER)).toBe(get(TimelineAppendHandler));

    const svc = await service();
    const beats = await Promise.all([heartbeat(svc.id, 10), heartbeat(svc.id, 10)]);
    advance(11);
    await Promise.all([first.pass(), second.pass(), first.pass(), second.pass()]);
    for (const hb of beats) {
      const { id } = await missedIncident(hb);
      expect(await incidentsTitled(`Heartbeat ${hb.name} missed`)).toHaveLength(1);
      expect(await timeline(id, 'im.alert.*')).toHaveLength(1);
    }
  });
});

const skip = alertmanagerSkipReason();
if (skip) console.info(`heartbeats.e2e: the real Alertmanager Watchdog test is ${skip}`);

(skip ? describe.skip : describe)('a real Prometheus Alertmanager’s Watchdog wired to a heartbeat', () => {
  let am: Alertmanager;
  let hb: Heartbeat;
  beforeAll(async () => {
    await t.app.listen(0, '127.0.0.1');
    const svc = await service();
    hb = await heartbeat(svc.id, 10);
    const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    // The receiver as docs/api.md shows it: the ping route as the webhook URL, the service's key as bearer, repeat_interval below the interval.
    am = await startAlertmanager({ webhookUrl: `${url}/api/v1/heartbeats/${hb.id}/ping`, bearer: await keyOf(svc.id), receiver: 'heartbeat', groupInterval: '1s', repeatInterval: '2s' });
  });
  afterAll(async () => {
    await am?.stop();
  });

  it('keeps the heartbeat ok for longer than its interval with its repeated notifications, and no incident opens', async () => {
    await am.fire([{ labels: { alertname: 'Watchdog', severity: 'none' }, annotations: { summary: 'Always firing: the alerting pipeline works' } }]);
    const first = await am.waitForMetrics((m) => m.requests >= 1);
    expect((await waitFor(() => read(hb.id), (view) => view.status === 'ok')).status).toBe('ok');
    const since = Date.now();
    // Well past the 10 s interval on the wall clock (the runner keeps passing meanwhile).
    await am.waitForMetrics((m) => m.requests >= first.requests + 6, 30_000);
    expect(Date.now() - since).toBeGreaterThan(10_000);
    const view = await read(hb.id);
    expect(view.status).toBe('ok');
    expect(Date.parse(view.last_ping_at!)).toBeGreaterThan(since + offset);
    await get<TimerRunner>(TimerRunner).pass();
    expect(await incidentsTitled(`Heartbeat ${hb.name} missed`)).toEqual([]);
    const pings = await get<EventStore>(EVENT_STORE).readStream(`heartbeat-${hb.id}`);
    expect(pings.length).toBeGreaterThanOrEqual(7);
    expect((await am.metrics()).requestsFailed).toBe(0);
  });
});
