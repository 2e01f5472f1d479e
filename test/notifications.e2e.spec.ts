import { join } from 'node:path';
import Database from 'better-sqlite3';
import { toCloudEvent } from '@im/cloudevents';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { type IncidentEvent, incidentStreamId, PAGE_EVENT_TYPE } from '@im/incidents';
import { consumerOf, NOTIFICATION_CHANNEL, PushSender } from '@im/outbound';
import { READ_MODELS_FILE } from '@im/persistence';
import { OUTBOUND_STORE, type OutboundStore, PROJECTION_PROGRESS, type ProjectionProgress } from '@im/read-models';
import { type Clock, CLOCK } from '@im/write-path';
import { startTestApp, type TestApp } from './support/app';
import { MailReceiver } from './support/mail-receiver';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

jest.setTimeout(60_000);

/**
 * Notifications by mail, with a real SMTP server (smtp-server) receiving
 * them: who is notified of what, the settings deciding (severity filter,
 * quiet hours in the responder's zone with the injected clock moved), the
 * decisions each responder lists, and an SMTP server down then back.
 */
const smtp = new MailReceiver();
/** Kept across a restart of the service (the last test). */
const dir = tempDir('notifications');
let env: Record<string, string>;
let t: TestApp;

beforeAll(async () => {
  env = { SMTP_URL: await smtp.start(), NOTIFY_FROM: 'Incidents <im@example.com>', CONSOLE_URL: 'https://im.example.com', NOTIFY_RETRY_INITIAL_MS: '200' };
  t = await startTestApp(env, dir.path);
});
afterAll(async () => {
  await t.app.close();
  dir.remove();
  await smtp.stop();
});
afterEach(() => jest.restoreAllMocks());

const as = (sub: string, claims: Record<string, unknown> = {}) =>
  bearer(token({ sub, email: `${sub}@example.com`, roles: ['timeline.reader', 'timeline.writer'], clearance: 'internal', data_access: [], ...claims }));

async function graphql(headers: Record<string, string>, query: string, variables?: object) {
  const res = await t.http().post('/api/v1/graphql').set(headers).send({ query, variables });
  expect(res.body.errors).toBeUndefined();
  return res.body.data as Record<string, any>;
}

const save = (sub: string, input: object, claims?: Record<string, unknown>) =>
  graphql(as(sub, claims), 'mutation S($input: NotificationPreferencesInput!) { updateNotificationSettings(input: $input) { userId } }', { input });
const declare = async (sub: string, input: object = {}) =>
  (await graphql(as(sub), 'mutation D($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }', { input: { title: 'Checkout is down', severity: 'SEV_2', ...input } })).declareIncident.id as string;
const assign = (by: string, incidentId: string, role: string, userId: string) =>
  graphql(as(by), `mutation { assignRole(incidentId: "${incidentId}", role: ${role}, userId: "${userId}") { id } }`);
const NOTIFICATIONS = '{ notifications { id incidentId channel trigger decision reason createdAt sentAt } }';
const notifications = async (sub: string) => (await graphql(as(sub), NOTIFICATIONS)).notifications as Record<string, any>[];

/** Waits until the responder lists a decision matching `expected` with its outcome (not the moment it is being sent), and answers it. */
async function decision(sub: string, expected: Record<string, unknown>, timeoutMs = 15_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await notifications(sub)).find((n) => n.reason !== 'sending' && Object.entries(expected).every(([k, v]) => n[k] === v));
    if (found) return found;
    if (Date.now() > until) throw new Error(`no decision like ${JSON.stringify(expected)} for ${sub}: ${JSON.stringify(await notifications(sub))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('who is notified of what, by mail', () => {
  it('mails the responder who declares as IC once (declared_ic, not also assigned): title, severity, status and the console link, never timeline content', async () => {
    await save('alice', { channels: ['email'] });
    const id = await declare('alice', { description: 'card data in the logs' });
    await graphql(as('alice'), `mutation { addNote(incidentId: "${id}", content: "root password is hunter2") { id } }`);
    await smtp.waitFor(() => smtp.to('alice@example.com').length === 1);
    const [mail] = smtp.to('alice@example.com');
    expect(mail.header('subject')).toBe(`[SEV-2] ${id}: Checkout is down`);
    expect(mail.header('from')).toBe('Incidents <im@example.com>');
    expect(mail.raw).toContain(`https://im.example.com/incidents/${id}`);
    expect(mail.raw).toContain('Declared with you as incident commander.');
    expect(mail.raw).toContain('Status: open');
    expect(mail.raw).not.toMatch(/card data|hunter2/);

    const email = await decision('alice', { incidentId: id, channel: 'email' });
    expect(email).toMatchObject({ trigger: 'declared_ic', decision: 'SENT', reason: null, sentAt: expect.any(String) });
    expect(await decision('alice', { incidentId: id, channel: 'push' })).toMatchObject({ trigger: 'declared_ic', decision: 'SUPPRESSED', reason: 'channel_disabled', sentAt: null });
    expect((await notifications('alice')).filter((n) => n.incidentId === id)).toHaveLength(2);
    // Only the responder lists their decisions.
    expect((await notifications('mallory')).filter((n) => n.incidentId === id)).toEqual([]);

    await graphql(as('alice'), `mutation { ackIncident(id: "${id}") { id } }`);
    await smtp.waitFor(() => smtp.to('alice@example.com').length === 2);
    expect(smtp.to('alice@example.com')[1].raw).toContain('It is now acknowledged.');
    expect(await decision('alice', { incidentId: id, channel: 'email', trigger: 'status_changed' })).toMatchObject({ decision: 'SENT' });
  });

  it('keeps a title on one line in the mail: its line breaks plant no lines of their own in the body', async () => {
    await save('olga', { channels: ['email'] });
    const forged = 'Outage\r\nStatus: resolved\r\n\r\nPay at https://pay.example/x\u2028Severity: SEV-4';
    const id = await declare('olga', { title: forged });
    await smtp.waitFor(() => smtp.to('olga@example.com').length === 1);
    const [mail] = smtp.to('olga@example.com');
    const lines = mail.raw.slice(mail.raw.indexOf('\r\n\r\n') + 4).split('\r\n');
    expect(lines).toContain('Title: Outage Status: resolved Pay at https://pay.example/x Severity: SEV-4');
    expect(lines.filter((line) => /^(Status|Severity|Pay at)/.test(line))).toEqual(['Severity: SEV-2', 'Status: open']);
    expect(mail.header('subject')).toMatch(new RegExp(`^\\[SEV-2\\] ${id}: Outage Status: resolved`));
  });

  it('suppresses by severity filter, then mails the same responder when the severity is raised into it', async () => {
    await save('bob', { severityFilter: ['SEV_1'], channels: ['email'] });
    const id = await declare('alice');
    await assign('alice', id, 'OPS', 'bob');
    expect(await decision('bob', { incidentId: id, channel: 'email', trigger: 'assigned' })).toMatchObject({ decision: 'SUPPRESSED', reason: 'severity_filter', sentAt: null });
    await graphql(as('alice'), `mutation { changeSeverity(incidentId: "${id}", severity: SEV_1) { id } }`);
    await smtp.waitFor(() => smtp.to('bob@example.com').length === 1);
    expect(smtp.to('bob@example.com')[0].header('subject')).toBe(`[SEV-1] ${id}: Checkout is down`);
    expect(smtp.to('bob@example.com')[0].raw).toContain('Its severity is now SEV-1.');
    expect(await decision('bob', { incidentId: id, channel: 'email', trigger: 'severity_changed' })).toMatchObject({ decision: 'SENT' });
  });

  it('notes why nothing went when no address is known (a responder who never saved settings)', async () => {
    const id = await declare('alice');
    await assign('alice', id, 'COMMS', 'nora');
    expect(await decision('nora', { incidentId: id, channel: 'email' })).toMatchObject({ decision: 'SUPPRESSED', reason: 'no_email_address' });
    expect(await decision('nora', { incidentId: id, channel: 'push' })).toMatchObject({ decision: 'SUPPRESSED', reason: 'no_push_subscription' });
  });

  it('withholds mail about an incident declared above the clearance the responder saved their settings with', async () => {
    await save('pat', { channels: ['email'] }, { clearance: 'internal' });
    const cleared = as('alice', { clearance: 'confidential' });
    const id = (await graphql(cleared, 'mutation { declareIncident(input: { title: "Breach", severity: SEV_1, visibility: "confidential" }) { id } }')).declareIncident.id;
    await graphql(cleared, `mutation { assignRole(incidentId: "${id}", role: OPS, userId: "pat") { id } }`);
    expect(await decision('pat', { incidentId: id, channel: 'email' })).toMatchObject({ decision: 'SUPPRESSED', reason: 'withheld' });
    expect(smtp.to('pat@example.com')).toEqual([]);
  });
});

describe('quiet hours in the responder\'s time zone (the injected clock moved)', () => {
  it('holds a SEV-2 until 07:00 in Auckland (18:00 UTC the day before), then sends it as the same record; a SEV-1 pages through', async () => {
    const clock = t.app.get<Clock>(CLOCK);
    let now = new Date('2026-11-22T10:30:00Z'); // 23:30 in Auckland; 10:30 in UTC, daytime there
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(now));
    await save('carol', { channels: ['email'], quietHours: { start: '22:00', end: '07:00', timeZone: 'Pacific/Auckland' } });
    const sev2 = await declare('alice', { title: 'Slow search' });
    const sev1 = await declare('alice', { title: 'Payments down', severity: 'SEV_1' });
    await assign('alice', sev2, 'OPS', 'carol');
    await assign('alice', sev1, 'OPS', 'carol');

    const paged = await decision('carol', { incidentId: sev1, channel: 'email' });
    expect(paged).toMatchObject({ decision: 'SENT', trigger: 'assigned' });
    const held = await decision('carol', { incidentId: sev2, channel: 'email' });
    expect(held).toMatchObject({ decision: 'HELD', reason: 'quiet_hours', sentAt: null });
    await smtp.waitFor(() => smtp.to('carol@example.com').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.to('carol@example.com').map((m) => m.header('subject'))).toEqual([`[SEV-1] ${sev1}: Payments down`]);

    now = new Date('2026-11-22T17:59:58Z'); // 06:59:58 there: still quiet
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.to('carol@example.com')).toHaveLength(1);
    now = new Date('2026-11-22T18:00:01Z'); // 07:00:01 there
    await smtp.waitFor(() => smtp.to('carol@example.com').length === 2);
    expect(smtp.to('carol@example.com')[1].header('subject')).toBe(`[SEV-2] ${sev2}: Slow search`);
    const sent = await decision('carol', { incidentId: sev2, channel: 'email', decision: 'SENT' });
    expect(sent).toMatchObject({ id: held.id, reason: null, sentAt: '2026-11-22T18:00:01.000Z', createdAt: held.createdAt });
    expect((await notifications('carol')).filter((n) => n.incidentId === sev2 && n.channel === 'email')).toHaveLength(1);
  });
});

describe('an SMTP server that is down', () => {
  it('records FAILED smtp_error, retries, and sends the mail exactly once when the server is back; the record becomes SENT', async () => {
    await save('dave', { channels: ['email'] });
    await smtp.stop();
    // Declared by dave: his mail is the first one waiting (mail goes out in ledger order, one server for all).
    const id = await declare('dave', { title: 'Mail outage' });
    const failed = await decision('dave', { incidentId: id, channel: 'email', decision: 'FAILED' });
    expect(failed).toMatchObject({ reason: 'smtp_error', sentAt: null });
    await smtp.start();
    await smtp.waitFor(() => smtp.to('dave@example.com').length === 1);
    expect(await decision('dave', { incidentId: id, channel: 'email', decision: 'SENT' })).toMatchObject({ id: failed.id, reason: null });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.to('dave@example.com')).toHaveLength(1);
  });
});

describe('a mail server refusing a recipient for good (550)', () => {
  it('records FAILED smtp_rejected without retrying, and the next mail still goes', async () => {
    smtp.unknownMailboxes.add('erin@example.com');
    await save('erin', { channels: ['email'] });
    await save('fred', { channels: ['email'] });
    const id = await declare('erin', { title: 'Unknown mailbox' });
    await assign('erin', id, 'OPS', 'fred');
    await smtp.waitFor(() => smtp.to('fred@example.com').length === 1);
    expect(await decision('erin', { incidentId: id, channel: 'email' })).toMatchObject({ decision: 'FAILED', reason: 'smtp_rejected', sentAt: null });
    expect(smtp.to('erin@example.com')).toEqual([]);
  });
});

describe('one recipient refused for now (450) among others', () => {
  it("does not delay dave's SEV-1 mail behind mallory's, which is retried on its own and sent once when her mailbox takes it", async () => {
    smtp.busyMailboxes.add('mallory@example.com');
    await save('mallory', { channels: ['email'] });
    await save('dave', { channels: ['email'] });
    const hers = await declare('mallory', { title: 'Mallory first' });
    const failed = await decision('mallory', { incidentId: hers, channel: 'email', decision: 'FAILED' });
    expect(failed).toMatchObject({ reason: 'smtp_error', sentAt: null });
    const daves = smtp.to('dave@example.com').length;
    const paging = await declare('dave', { title: 'Payments down', severity: 'SEV_1' });
    // Before the fix the one mail worker retried mallory's mail for up to 24 h, and nothing behind it went.
    await smtp.waitFor(() => smtp.to('dave@example.com').length === daves + 1, 5000);
    expect(smtp.to('dave@example.com')[daves].header('subject')).toBe(`[SEV-1] ${paging}: Payments down`);
    expect(await decision('mallory', { incidentId: hers, channel: 'email' })).toMatchObject({ id: failed.id, decision: 'FAILED', reason: 'smtp_error' });

    smtp.busyMailboxes.delete('mallory@example.com');
    await smtp.waitFor(() => smtp.to('mallory@example.com').length === 1);
    expect(await decision('mallory', { incidentId: hers, channel: 'email', decision: 'SENT' })).toMatchObject({ id: failed.id, reason: null });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.to('mallory@example.com')).toHaveLength(1);
  });
});

describe('registering a push subscription', () => {
  it('refuses an endpoint on a private address and a p256dh that is no P-256 point (BAD_USER_INPUT)', async () => {
    const keys = { p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') };
    const register = (input: object) =>
      t.http().post('/api/v1/graphql').set(as('mallory')).send({ query: 'mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id } }', variables: { input } });
    const bad = await register({ endpoint: 'https://push.example.com/x', keys });
    expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringContaining('a point on the curve') });
    const { createECDH } = await import('node:crypto');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    for (const endpoint of ['https://127.0.0.1:8443/push', 'https://[::ffff:10.0.0.1]/push', 'https://169.254.169.254/push']) {
      const refused = await register({ endpoint, keys: { ...keys, p256dh: ecdh.getPublicKey().toString('base64url') } });
      expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' }, message: expect.stringContaining('endpoint is refused') });
    }
  });
});

describe('settings saved while a push subscription is registered or removed', () => {
  it('keeps both: each write to the responder\'s stream is decided on all of it', async () => {
    const { createECDH } = await import('node:crypto');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const input = { endpoint: 'https://push.example.com/erin', keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') } };
    await save('erin', { severityFilter: ['SEV_1'], channels: ['email'] });
    const [registered] = await Promise.all([
      graphql(as('erin'), 'mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id } }', { input }),
      save('erin', { pushEnabled: false }),
    ]);
    await Promise.all([graphql(as('erin'), `mutation { unregisterPushSubscription(id: "${registered.registerPushSubscription.id}") }`), save('erin', { channels: ['email', 'push'] })]);
    const { notificationSettings } = await graphql(as('erin'), '{ notificationSettings { pushEnabled severityFilter channels } }');
    expect(notificationSettings).toEqual({ pushEnabled: false, severityFilter: ['SEV_1'], channels: ['push', 'email'] });
  });
});

describe('notifications(limit:)', () => {
  it('lists newest first and honours the limit; refuses a limit out of range', async () => {
    const all = await notifications('alice');
    expect(all.map((n) => n.createdAt)).toEqual([...all.map((n) => n.createdAt)].sort().reverse());
    const two = (await graphql(as('alice'), '{ notifications(limit: 2) { id } }')).notifications;
    expect(two.map((n: { id: string }) => n.id)).toEqual(all.slice(0, 2).map((n) => n.id));
    const res = await t.http().post('/api/v1/graphql').set(as('alice')).send({ query: '{ notifications(limit: 0) { id } }' });
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('a page (on call)', () => {
  /**
   * Appends an im.paging.page as the escalation timers record it (actor system:escalation), straight to the ledger:
   * the incident decider pages only by a policy (test/paging.e2e.spec.ts), and these tests choose the users. Answers its log position.
   */
  async function page(incidentId: string, step: number, round: number, users: string[]): Promise<bigint> {
    const paged = users.map((user) => ({ user, via: 'user' }));
    const event = toCloudEvent({ type: PAGE_EVENT_TYPE, incidentId, time: new Date().toISOString(), data: { step, round, paged, unstaffed: [] } } as IncidentEvent, {
      actor: 'system:escalation',
      sender: 'system:escalation',
    });
    const { position } = await t.app.get<EventStore>(EVENT_STORE).append(incidentStreamId(incidentId), [event], 'stream_exists');
    await t.app.get<ProjectionProgress>(PROJECTION_PROGRESS).waitFor(position, 5000);
    return position;
  }
  const register = async (sub: string) => {
    const { createECDH } = await import('node:crypto');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const input = { endpoint: `https://push.example.com/${sub}`, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') } };
    await graphql(as(sub), 'mutation R($input: PushSubscriptionInput!) { registerPushSubscription(input: $input) { id } }', { input });
  };
  const asleep = { quietHours: { start: '22:00', end: '07:00', timeZone: 'Pacific/Auckland' }, severityFilter: ['SEV_1'] };

  it('wakes a paged responder in quiet hours, for a severity their filter leaves out, by mail with the console link; email off: none; push as pushEnabled says', async () => {
    jest.spyOn(t.app.get<Clock>(CLOCK), 'now').mockImplementation(() => new Date('2026-11-22T10:30:00Z')); // 23:30 in Auckland
    // The push service is another test's (notifications.process.spec.ts): here the sender answers as one that took it.
    const pushed = jest.spyOn(PushSender.prototype, 'send').mockResolvedValue({ result: 'delivered', statusCode: 201 });
    await save('hana', { channels: ['email'], ...asleep });
    await save('ivan', { channels: ['push'], pushEnabled: false, ...asleep });
    await save('jill', { channels: ['push'], ...asleep });
    await Promise.all([register('ivan'), register('jill')]);
    const id = await declare('alice', { title: 'Search is slow', severity: 'SEV_3' });
    await page(id, 2, 1, ['hana', 'ivan', 'jill']);

    await smtp.waitFor(() => smtp.to('hana@example.com').length === 1);
    const [mail] = smtp.to('hana@example.com');
    expect(mail.header('subject')).toBe(`[SEV-3] Paged: ${id}: Search is slow`);
    expect(mail.raw).toContain('You are paged (escalation step 2, round 1)');
    expect(mail.text).toContain(`https://im.example.com/incidents/${id}?ack=1`);
    expect(await decision('hana', { incidentId: id, channel: 'email' })).toMatchObject({ trigger: 'paged', decision: 'SENT', reason: null, sentAt: expect.any(String) });
    expect(await decision('hana', { incidentId: id, channel: 'push' })).toMatchObject({ trigger: 'paged', decision: 'SUPPRESSED', reason: 'channel_disabled' });

    expect(await decision('ivan', { incidentId: id, channel: 'email' })).toMatchObject({ trigger: 'paged', decision: 'SUPPRESSED', reason: 'channel_disabled' });
    expect(await decision('ivan', { incidentId: id, channel: 'push' })).toMatchObject({ trigger: 'paged', decision: 'SUPPRESSED', reason: 'push_disabled' });
    expect(smtp.to('ivan@example.com')).toEqual([]);

    expect(await decision('jill', { incidentId: id, channel: 'push' })).toMatchObject({ trigger: 'paged', decision: 'SENT' });
    const [[subscription, payload, urgent]] = pushed.mock.calls;
    expect(subscription.userId).toBe('jill');
    expect(urgent).toBe(true);
    expect(JSON.parse(payload)).toEqual({ incident_id: id, title: 'Search is slow', severity: 'SEV-3', status: 'open', trigger: 'paged', url: `https://im.example.com/incidents/${id}?ack=1` });
    expect(pushed).toHaveBeenCalledTimes(1);

    // The IC was not paged: nothing of the page for her.
    expect((await notifications('alice')).filter((n) => n.incidentId === id && n.trigger === 'paged')).toEqual([]);
  });

  it('does not mail a page twice when the restarted service reads the page event again', async () => {
    await save('kim', { channels: ['email'] });
    const id = await declare('alice', { title: 'Queue backlog' });
    const position = await page(id, 1, 1, ['kim']);
    await smtp.waitFor(() => smtp.to('kim@example.com').length === 1);
    const sent = await decision('kim', { incidentId: id, channel: 'email', decision: 'SENT' });

    // Stopped, its mail consumer's checkpoint put back before the page, as a crash before the checkpoint was committed leaves it.
    await t.app.close();
    const consumer = consumerOf(NOTIFICATION_CHANNEL, 'email');
    const db = new Database(join(dir.path, READ_MODELS_FILE));
    db.prepare('UPDATE outbound_checkpoints SET position = ? WHERE consumer = ?').run(position - 1n, consumer);
    db.close();
    t = await startTestApp(env, dir.path);
    const outbound = t.app.get<OutboundStore>(OUTBOUND_STORE);
    for (const until = Date.now() + 15_000; ((await outbound.checkpoint(consumer)) ?? 0n) < position; ) {
      if (Date.now() > until) throw new Error('the mail consumer did not read the page again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.to('kim@example.com')).toHaveLength(1);
    const kims = (await notifications('kim')).filter((n) => n.incidentId === id);
    expect(kims).toHaveLength(2);
    expect(kims.find((n) => n.channel === 'email')).toEqual(sent);
  });
});
