import { type ServerProcess, startServer } from './support/server-process';
import { MailReceiver } from './support/mail-receiver';
import { PushClient, PushService } from './support/push-service';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

jest.setTimeout(120_000);

/**
 * The built server as its users run it, with real peers: a push service on
 * https://127.0.0.1 (self-signed, trusted through NODE_EXTRA_CA_CERTS) that
 * decrypts what it receives with the subscription's keys, and an SMTP server
 * that goes down and comes back while the service restarts. Nothing is sent
 * twice across a restart; the mail held up by the outage is sent once.
 */
const dir = tempDir('notify-process');
const smtp = new MailReceiver();
const push = new PushService();
let env: Record<string, string>;
let api: ServerProcess | undefined;

const ALICE = { ...bearer(token({ sub: 'alice', email: 'alice@example.com', clearance: 'internal', data_access: [] })), 'content-type': 'application/json' };
const BOB = { ...bearer(token({ sub: 'bob', email: 'bob@example.com', clearance: 'internal', data_access: [] })), 'content-type': 'application/json' };

async function graphql(headers: Record<string, string>, query: string, variables?: object): Promise<{ data?: Record<string, any>; errors?: { extensions: { code: string } }[] }> {
  const res = await fetch(`${api!.url}/api/v1/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return (await res.json()) as { data?: Record<string, any> };
}
async function ok(headers: Record<string, string>, query: string, variables?: object): Promise<Record<string, any>> {
  const { data, errors } = await graphql(headers, query, variables);
  expect(errors).toBeUndefined();
  return data!;
}
const notifications = async (headers: Record<string, string>) =>
  (await ok(headers, '{ notifications(limit: 100) { id incidentId channel trigger decision reason sentAt } }')).notifications as Record<string, any>[];

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function restart(): Promise<void> {
  api!.child.kill('SIGTERM');
  await api!.exited;
  api = await startServer(env);
}

beforeAll(async () => {
  const smtpUrl = await smtp.start();
  await push.start();
  env = {
    DATA_DIR: dir.path,
    LOG_LEVEL: 'warn',
    SMTP_URL: smtpUrl,
    CONSOLE_URL: 'https://im.example.com',
    NOTIFY_RETRY_INITIAL_MS: '200',
    NOTIFY_TIMEOUT_MS: '2000',
    NODE_EXTRA_CA_CERTS: push.certFile,
    PUSH_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  api = await startServer(env);
});
afterAll(async () => {
  api?.child.kill('SIGTERM');
  await api?.exited;
  await smtp.stop();
  await push.close();
  dir.remove();
});

describe('Web Push to a push service (RFC 8030/8291/8292)', () => {
  it('delivers the payload encrypted for the subscription and signed with the VAPID key; a 410 removes the subscription', async () => {
    const { publicKey } = (await (await fetch(`${api!.url}/api/v1/notifications/vapid-public-key`)).json()) as { publicKey: string };
    expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
    const browser = new PushClient(`${push.url}/push/alice-laptop`);
    const registered = (await ok(ALICE, 'mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id endpoint createdAt } }', { input: browser.subscription })).registerPushSubscription;
    expect(registered).toEqual({ id: expect.stringMatching(/^ps_/), endpoint: browser.endpoint, createdAt: expect.any(String) });
    await ok(ALICE, 'mutation { updateNotificationSettings(input: { channels: ["push"] }) { userId } }');

    const id = (await ok(ALICE, 'mutation { declareIncident(input: { title: "Checkout is down", severity: SEV_1, description: "secret details" }) { id } }')).declareIncident.id;
    await push.waitFor(() => push.requests.length === 1);
    const [request] = push.requests;
    expect(request.path).toBe('/push/alice-laptop');
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(request.headers.urgency).toBe('high');
    expect(request.headers.authorization).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${publicKey}$`));
    expect(request.body.toString('latin1')).not.toContain('Checkout');
    expect(browser.decrypt(request.body)).toEqual({
      incident_id: id,
      title: 'Checkout is down',
      severity: 'SEV-1',
      status: 'open',
      trigger: 'declared_ic',
      url: `https://im.example.com/incidents/${id}`,
    });
    expect(await until(async () => (await notifications(ALICE)).find((n) => n.incidentId === id && n.channel === 'push' && n.decision === 'SENT'), 'the push SENT')).toMatchObject({ trigger: 'declared_ic' });

    // The browser unsubscribed at the push service: it answers 410, and the subscription is removed.
    push.answer = () => 410;
    await ok(ALICE, `mutation { ackIncident(id: "${id}") { id } }`);
    await push.waitFor(() => push.requests.length === 2);
    const gone = await until(async () => {
      const { errors } = await graphql(ALICE, `mutation { unregisterPushSubscription(id: "${registered.id}") }`);
      return errors?.[0].extensions.code === 'NOT_FOUND' ? true : undefined;
    }, 'the subscription to be removed');
    expect(gone).toBe(true);
    expect(await until(async () => (await notifications(ALICE)).find((n) => n.incidentId === id && n.trigger === 'status_changed' && n.channel === 'push' && n.decision === 'SUPPRESSED'), 'the push SUPPRESSED')).toMatchObject({ reason: 'no_push_subscription' });
    push.answer = () => 201;
  });

  it('refuses a subscription that is not one (BAD_USER_INPUT), and lets a responder remove only their own', async () => {
    const { errors } = await graphql(ALICE, 'mutation { registerPushSubscription(input: { endpoint: "http://push.example/x", keys: { p256dh: "x", auth: "y" } }) { id } }');
    expect(errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    const mine = (await ok(BOB, 'mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id } }', { input: new PushClient(`${push.url}/push/bob`).subscription })).registerPushSubscription.id;
    expect((await graphql(ALICE, `mutation { unregisterPushSubscription(id: "${mine}") }`)).errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await ok(BOB, `mutation { unregisterPushSubscription(id: "${mine}") }`)).unregisterPushSubscription).toBe(true);
  });
});

describe("a responder's subscriptions registered with different clearances", () => {
  it('pushes a confidential incident only to the subscription whose clearance sees it', async () => {
    const claims = (clearance: string) => ({ ...bearer(token({ sub: 'cleo', clearance, data_access: [] })), 'content-type': 'application/json' });
    const register = `mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id } }`;
    const laptop = new PushClient(`${push.url}/push/cleo-work-laptop`);
    await ok(claims('confidential'), register, { input: laptop.subscription });
    await ok(claims('internal'), register, { input: new PushClient(`${push.url}/push/cleo-home-tablet`).subscription });
    await ok(claims('confidential'), 'mutation { updateNotificationSettings(input: { channels: ["push"] }) { userId } }');
    const id = (await ok(claims('confidential'), 'mutation { declareIncident(input: { title: "Breach", severity: SEV_1, visibility: "confidential" }) { id } }')).declareIncident.id;
    await push.waitFor(() => push.requests.some((r) => r.path === '/push/cleo-work-laptop'));
    expect(laptop.decrypt(push.requests.find((r) => r.path === '/push/cleo-work-laptop')!.body)).toMatchObject({ incident_id: id, title: 'Breach' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Before the fix every subscription of the responder got it once any one of them could see the incident.
    expect(push.requests.filter((r) => r.path === '/push/cleo-home-tablet')).toEqual([]);
  });
});

describe('one broken subscription among many', () => {
  /** A responder (clearance internal) with push on and one subscription at `path` of the push service. */
  async function pushResponder(sub: string, path: string): Promise<Record<string, string>> {
    const headers = { ...bearer(token({ sub, clearance: 'internal', data_access: [] })), 'content-type': 'application/json' };
    await ok(headers, 'mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id } }', { input: new PushClient(`${push.url}${path}`).subscription });
    await ok(headers, 'mutation { updateNotificationSettings(input: { channels: ["push"] }) { userId } }');
    return headers;
  }

  it("does not delay dave's SEV-1 push behind mallory's failing push service, whose notification is retried on its own", async () => {
    const MALLORY = await pushResponder('mallory', '/push/mallory-broken');
    const DAVE = await pushResponder('dave', '/push/dave-phone');
    push.answer = (request) => (request.path === '/push/mallory-broken' ? 500 : 201);
    try {
      const hers = (await ok(MALLORY, 'mutation { declareIncident(input: { title: "Mallory first", severity: SEV_2 }) { id } }')).declareIncident.id;
      await until(async () => (await notifications(MALLORY)).find((n) => n.incidentId === hers && n.channel === 'push' && n.decision === 'FAILED'), 'a FAILED push');
      const paging = (await ok(DAVE, 'mutation { declareIncident(input: { title: "Payments down", severity: SEV_1 }) { id } }')).declareIncident.id;
      // Before the fix the one push worker retried mallory's notification for up to 24 h, and nothing behind it went.
      await push.waitFor(() => push.requests.some((r) => r.path === '/push/dave-phone'), 5000);
      expect(await until(async () => (await notifications(DAVE)).find((n) => n.incidentId === paging && n.channel === 'push' && n.decision === 'SENT'), "dave's push SENT")).toBeDefined();
      // Hers is tried again on its own schedule (NOTIFY_RETRY_INITIAL_MS, doubling): more than once by now.
      await push.waitFor(() => push.requests.filter((r) => r.path === '/push/mallory-broken').length >= 3, 10_000);
      expect((await notifications(MALLORY)).find((n) => n.incidentId === hers && n.channel === 'push')).toMatchObject({ decision: 'FAILED', reason: 'push_error' });
    } finally {
      push.answer = () => 201;
    }
    // Once her push service takes it, the same record is SENT, and nothing more goes to her.
    await until(async () => (await notifications(MALLORY)).find((n) => n.channel === 'push' && n.decision === 'SENT'), 'her push SENT');
  });

  it("ends a push whose service trickles its answer after NOTIFY_TIMEOUT_MS (timeout), and erin's SEV-1 goes out meanwhile", async () => {
    const TRUDY = await pushResponder('trudy', '/push/trudy-trickling');
    const ERIN = await pushResponder('erin', '/push/erin-phone');
    push.trickling.add('/push/trudy-trickling');
    try {
      const hers = (await ok(TRUDY, 'mutation { declareIncident(input: { title: "Trudy first", severity: SEV_2 }) { id } }')).declareIncident.id;
      await push.waitFor(() => push.requests.some((r) => r.path === '/push/trudy-trickling'));
      const paging = (await ok(ERIN, 'mutation { declareIncident(input: { title: "Search down", severity: SEV_1 }) { id } }')).declareIncident.id;
      // Before the fix web-push's timeout (the socket's idle time) never came: the one push worker waited on her answer, and nothing behind it went.
      await push.waitFor(() => push.requests.some((r) => r.path === '/push/erin-phone'), 10_000);
      expect(await until(async () => (await notifications(ERIN)).find((n) => n.incidentId === paging && n.channel === 'push' && n.decision === 'SENT'), "erin's push SENT")).toBeDefined();
      expect(await until(async () => (await notifications(TRUDY)).find((n) => n.incidentId === hers && n.channel === 'push' && n.decision === 'FAILED'), 'her push FAILED')).toMatchObject({ reason: 'timeout' });
    } finally {
      push.trickling.delete('/push/trudy-trickling');
    }
    // Retried on its own schedule, it is SENT once her push service answers.
    await until(async () => (await notifications(TRUDY)).find((n) => n.channel === 'push' && n.decision === 'SENT'), 'her push SENT');
  });
});

describe('across restarts', () => {
  it('sends nothing twice after a restart, and the mail held up by an SMTP outage (through a restart) exactly once', async () => {
    await ok(BOB, 'mutation { updateNotificationSettings(input: { channels: ["email"] }) { userId } }');
    const first = (await ok(BOB, 'mutation { declareIncident(input: { title: "Before the restart", severity: SEV_2 }) { id } }')).declareIncident.id;
    await smtp.waitFor(() => smtp.to('bob@example.com').length === 1);
    const pushesBefore = push.requests.length;

    await restart();
    await smtp.stop();
    const second = (await ok(BOB, 'mutation { declareIncident(input: { title: "During the outage", severity: SEV_2 }) { id } }')).declareIncident.id;
    const failed = await until(async () => (await notifications(BOB)).find((n) => n.incidentId === second && n.channel === 'email' && n.decision === 'FAILED'), 'a FAILED decision');
    expect(failed.reason).toBe('smtp_error');

    await restart();
    await smtp.start();
    await smtp.waitFor(() => smtp.to('bob@example.com').length === 2);
    expect(await until(async () => (await notifications(BOB)).find((n) => n.id === failed.id && n.decision === 'SENT'), 'the same record SENT')).toBeDefined();

    await restart();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const subjects = smtp.to('bob@example.com').map((m) => m.header('subject'));
    expect(subjects).toEqual([`[SEV-2] ${first}: Before the restart`, `[SEV-2] ${second}: During the outage`]);
    expect(new Set(smtp.mails.map((m) => m.header('message-id'))).size).toBe(smtp.mails.length);
    expect(push.requests.length).toBe(pushesBefore);
    expect((await notifications(BOB)).filter((n) => n.channel === 'email').map((n) => n.decision)).toEqual(['SENT', 'SENT']);
  });
});

describe('a crash while a mail is being sent', () => {
  it('has stored the decision before sending it; after the crash the mail goes again under the same Message-ID, once, and the record becomes SENT', async () => {
    const GIL = { ...bearer(token({ sub: 'gil', email: 'gil@example.com', clearance: 'internal', data_access: [] })), 'content-type': 'application/json' };
    await ok(GIL, 'mutation { updateNotificationSettings(input: { channels: ["email"] }) { userId } }');
    let release = () => undefined as void;
    smtp.holdAnswers = new Promise<void>((resolve) => (release = resolve));
    const id = (await ok(GIL, 'mutation { declareIncident(input: { title: "Crash mid-send", severity: SEV_2 }) { id } }')).declareIncident.id;
    await smtp.waitFor(() => smtp.to('gil@example.com').length === 1);
    // Before the fix nothing was stored until the server answered.
    const sending = await until(async () => (await notifications(GIL)).find((n) => n.incidentId === id && n.channel === 'email'), 'the stored decision');
    expect(sending).toMatchObject({ decision: 'HELD', reason: 'sending', sentAt: null });

    api!.child.kill('SIGKILL');
    await api!.exited;
    smtp.holdAnswers = undefined;
    release();
    api = await startServer(env);
    // SMTP has no idempotency: the one mail whose answer the crash cut off goes again, with the same Message-ID.
    await smtp.waitFor(() => smtp.to('gil@example.com').length === 2);
    const [first, again] = smtp.to('gil@example.com');
    expect(again.header('message-id')).toBe(first.header('message-id'));
    expect(await until(async () => (await notifications(GIL)).find((n) => n.id === sending.id && n.decision === 'SENT'), 'the same record SENT')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.to('gil@example.com')).toHaveLength(2);
  });
});
