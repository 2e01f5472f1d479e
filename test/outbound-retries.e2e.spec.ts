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
    // The event cut short by the restart is tried once more; its window (from the first attempt) is then over.
    // Before the fix the restart opened a new 4-second window: four or five more attempts, until about 4.5 s after the restart.
    expect(receiver.received.length - before).toBe(1);
    expect(arrivals[arrivals.length - 1] - arrivals[0]).toBeLessThanOrEqual(5000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });
});
