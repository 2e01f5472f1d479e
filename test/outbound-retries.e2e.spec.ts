import { type Clock, CLOCK } from '@im/write-path';
import { startTestApp, type TestApp } from './support/app';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(60_000);

/**
 * The outbound retries as a receiver sees them across restarts: the retry
 * window (WEBHOOK_RETRY_HOURS) counts from an event's first attempt, kept in
 * the attempt log, not from the last start of the service.
 */
const ADMIN = bearer(token({ sub: 'hook-admin', roles: ['webhooks.admin'] }));
const WRITER = bearer(token({ sub: 'alice', roles: ['timeline.writer', 'timeline.reader'], clearance: 'internal', data_access: [] }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the retry window across a restart', () => {
  const dir = tempDir('outbound-retries');
  const receiver = new WebhookReceiver(() => 500);
  const arrivals: number[] = [];
  let t: TestApp | undefined;
  // A 4-second window, first retry after 200 ms: attempts about 0, 0.2, 0.6, 1.4, 3.0 s after the first (±20 %).
  const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_INITIAL_MS: '200', WEBHOOK_RETRY_HOURS: String(4 / 3600) };

  afterAll(async () => {
    await t?.close();
    await receiver.close();
    dir.remove();
  });

  it('gives an event up 4 s after its first attempt even though the service restarted in between', async () => {
    receiver.answerWith((n) => {
      arrivals[n] = Date.now();
      return 500;
    });
    const url = await receiver.start();
    t = await startTestApp(env, dir.path);
    await t.http().post('/api/v1/webhooks').set(ADMIN).send({ url, event_types: ['im.incident.*'] }).expect(201);
    await t.http().post('/api/v1/incidents').set(WRITER).send({ title: 'Checkout down', severity: 'SEV-2' }).expect(201);
    await receiver.waitFor(() => receiver.received.length >= 4);
    await t.close(); // commits the attempt log
    const before = receiver.received.length;
    t = await startTestApp(env, dir.path);

    await sleep(8000);
    // The event cut short by the restart is tried once more, and at most once after that: when the close
    // interrupted the fourth attempt before it was logged, the next pause (1.6 s ± 20 %) may still end inside
    // the window. Either way nothing arrives past the window counted from the first attempt.
    // Before the fix the restart opened a new 4-second window: four or five more attempts, until about 4.5 s after the restart.
    expect(receiver.received.length - before).toBeGreaterThanOrEqual(1);
    expect(receiver.received.length - before).toBeLessThanOrEqual(2);
    expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeLessThanOrEqual(5000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });
});

describe('a clock stepped back', () => {
  const receiver = new WebhookReceiver(() => 204);
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_INITIAL_MS: '200' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it('keeps logging attempts and moving the checkpoint, and a manual retry completes', async () => {
    const url = await receiver.start();
    const { id } = (await t.http().post('/api/v1/webhooks').set(ADMIN).send({ url, event_types: ['im.incident.*'] }).expect(201)).body;
    const clock = t.app.get<Clock>(CLOCK);
    let now = Date.parse('2026-11-22T10:00:00Z');
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(now));
    const declare = async (title: string) => (await t.http().post('/api/v1/incidents').set(WRITER).send({ title, severity: 'SEV-2' }).expect(201)).body.id as string;
    const deliveries = async () => (await t.http().get(`/api/v1/webhooks/${id}/deliveries`).set(ADMIN).expect(200)).body.items as { id: string; event_id: string }[];

    await declare('Before the step');
    await declare('Before the step, again');
    await receiver.waitFor(() => receiver.received.length === 2);
    now -= 60_000; // NTP steps the clock back a minute
    await declare('After the step');
    await receiver.waitFor(() => receiver.received.length === 3);
    // Before the fix the attempt after the step repeated an earlier id: every later commit failed, nothing more was logged.
    const until = Date.now() + 5000;
    while ((await deliveries()).length < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    const log = await deliveries();
    expect(log).toHaveLength(3);
    expect(new Set(log.map((d) => d.id)).size).toBe(3);

    await t.http().post(`/api/v1/webhooks/${id}/deliveries/${log[0].id}/retry`).set(ADMIN).expect(202);
    await receiver.waitFor(() => receiver.received.length === 4);
    const after = Date.now() + 5000;
    while ((await deliveries()).length < 4 && Date.now() < after) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await deliveries()).toHaveLength(4);
    await declare('Later still');
    await receiver.waitFor(() => receiver.received.length === 5);
  });
});
