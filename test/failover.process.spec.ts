import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MailReceiver } from './support/mail-receiver';
import { temporaryDatabase, type TemporaryDatabase } from './support/postgres-database';
import { type ServerProcess, startProjector, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';
import { WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(900_000);

/**
 * The production shape on PostgreSQL, its lease holder killed (docs/architecture.md, "Leases"):
 * two apis (PROJECTOR=external) and two projectors on one database, a steady load of notes and
 * alerts through both apis, ten webhook receivers verifying every signature with the Standard
 * Webhooks library, alerts whose incidents escalate (steps of 1 s) and page by mail. The process
 * holding the projections' lease is killed with SIGKILL ten times at random moments and a new
 * projector started each time; then the holder is paused (SIGSTOP) past its lease, and woken.
 * Afterwards: every acknowledged event is in the ledger once and in every read model; every
 * receiver got every event (a repeat only under the same webhook-id); no (incident, round, step,
 * user) was paged twice, nor mailed under two Message-IDs; every takeover took under 15 s.
 */
const KILLS = 10;
const WEBHOOKS = 10;
const WRITERS = 4;
const RESPONDERS = ['ann', 'bob', 'cy'];
const TAKEOVER_LIMIT_MS = 15_000;

const ADMIN = { ...bearer(token({ sub: 'ops', roles: ['timeline.writer', 'timeline.reader', 'oncall.admin', 'webhooks.admin'] })), 'content-type': 'application/json' };
const READER = bearer(token({ sub: 'auditor', roles: ['timeline.reader'] }));
const emailOf = (user: string) => `${user}@example.com`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

interface Projector {
  child: ServerProcess['child'];
  exited: ServerProcess['exited'];
  output: () => string;
}

interface Lease {
  name: string;
  holder: { pid: number; host: string; kind: string } | null;
  generation: number;
}

let database: TemporaryDatabase;
const dataDir = tempDir('failover');
const mail = new MailReceiver();
const receivers = Array.from({ length: WEBHOOKS }, () => new WebhookReceiver());
const apis: ServerProcess[] = [];
const projectors: Projector[] = [];
/** While set, the load keeps appending. */
let loading = true;

afterAll(async () => {
  loading = false;
  const running = [...apis, ...projectors];
  running.forEach((p) => p.child.kill('SIGKILL'));
  await Promise.all(running.map((p) => p.exited));
  await Promise.all(receivers.map((r) => r.close()));
  await mail.stop();
  await database?.drop();
  dataDir.remove();
});

it(`keeps every event, delivery and page through ${KILLS} kills of the lease holder among two apis and two projectors on PostgreSQL`, async () => {
  database = await temporaryDatabase('failover');
  const smtpUrl = await mail.start();
  // One DATA_DIR for all: on PostgreSQL nothing of the stores is in it, only the development keys every process must share.
  const env = {
    EVENT_STORE: 'postgres',
    READ_STORE: 'postgres',
    POSTGRES_URL: database.url,
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    SMTP_URL: smtpUrl,
    NOTIFY_RETRY_INITIAL_MS: '200',
    // A write waits out a takeover for its read-your-writes rather than answering 503.
    PROJECTION_WAIT_MS: '30000',
  };
  const startOneProjector = async () => {
    const projector = startProjector(env);
    await projector.ready;
    projectors.push(projector);
  };
  await startOneProjector();
  await startOneProjector();
  apis.push(await startServer({ ...env, PROJECTOR: 'external' }), await startServer({ ...env, PROJECTOR: 'external' }));
  const apiUrl = (n: number) => apis[n % apis.length].url;

  async function call(method: string, path: string, body?: object, headers: Record<string, string> = ADMIN, via = 0): Promise<any> {
    const res = await fetch(`${apiUrl(via)}${path}`, { method, headers, body: body && JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }
  const leases = async (): Promise<Lease[]> => (await call('GET', '/api/v1/leases', undefined, READER)).leases;
  const holderOfProjections = () => until(async () => (await leases()).find((l) => l.name === 'projections')?.holder?.pid, 'a holder of the projections');

  // Ten receivers, each registered for every incident event, verifying with the secret it was given.
  for (const receiver of receivers) {
    const url = await receiver.start();
    receiver.secret = (await call('POST', '/api/v1/webhooks', { url, event_types: ['im.incident.*'] })).secret;
  }
  // Responders who take their pages by mail.
  for (const user of RESPONDERS) {
    const headers = { ...bearer(token({ sub: user, email: emailOf(user), clearance: 'internal', data_access: [] })), 'content-type': 'application/json' };
    await call('POST', '/api/v1/graphql', { query: 'mutation { updateNotificationSettings(input: { channels: ["email"] }) { userId } }' }, headers);
  }
  const steps = RESPONDERS.map((id) => ({ delay_seconds: 1, targets: [{ type: 'user', id }] }));
  const policy = await call('POST', '/api/v1/escalation-policies', { name: 'Fast', steps, repeat: 1 });
  await call('POST', '/api/v1/services', { name: 'Checkout', escalation_policy_id: policy.id });

  // The load: writers appending notes to their incidents through both apis in turn, and an alert of the service every second or so.
  const incidents: string[] = [];
  for (let w = 0; w < WRITERS; w++) incidents.push((await call('POST', '/api/v1/incidents', { title: `load ${w}`, severity: 'SEV-3' }, ADMIN, w)).id);
  const acknowledged: string[] = [];
  /** The acknowledged notes: what the receivers subscribed to (im.incident.*; alerts are im.alert.*). */
  const notesAcknowledged: string[] = [];
  const unanswered: string[] = [];
  const alerted: string[] = [];
  const append = async (via: number, event: object): Promise<{ event_id: string; incident_id: string } | undefined> => {
    const id = (event as { id: string }).id;
    try {
      const res = await fetch(`${apiUrl(via)}/api/v1/timeline/events`, { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(event) });
      if (res.status === 201) return (await res.json()) as { event_id: string; incident_id: string };
      unanswered.push(id);
    } catch {
      unanswered.push(id);
    }
    return undefined;
  };
  const cloudEvent = (type: string, fields: object) => ({ specversion: '1.0', id: randomUUID(), source: 'im://failover', type, time: new Date().toISOString(), ...fields });
  const writers = incidents.map(async (incident, w) => {
    for (let n = 0; loading; n++) {
      const answer = await append(w + n, cloudEvent('im.incident.note', { subject: `incident/${incident}`, data: { content: `note ${n}` } }));
      if (answer) {
        acknowledged.push(answer.event_id);
        notesAcknowledged.push(answer.event_id);
      }
      await sleep(20);
    }
  });
  const alerts = (async () => {
    for (let n = 0; loading; n++) {
      const answer = await append(n, cloudEvent('im.alert.trigger', { 'im.fingerprint': `failover-${n}-${randomUUID()}`, data: { title: `Checkout errors ${n}`, service: 'Checkout' } }));
      if (answer) {
        acknowledged.push(answer.event_id);
        alerted.push(answer.incident_id);
      }
      await sleep(1000);
    }
  })();

  // The kills: the holder of the projections' lease, at a random moment; how long until another holds each lease it held.
  const takeovers: number[] = [];
  const awaitTakeover = async (pid: number, names: string[], since: number) => {
    await until(async () => {
      const now = await leases();
      return names.every((name) => {
        const holder = now.find((l) => l.name === name)?.holder;
        return holder && holder.pid !== pid;
      });
    }, `the leases of ${pid} taken over`, 60_000);
    takeovers.push(Date.now() - since);
  };
  for (let kill = 0; kill < KILLS; kill++) {
    await sleep(2000 + Math.random() * 3000);
    const pid = await holderOfProjections();
    const victim = projectors.find((p) => p.child.pid === pid)!;
    expect(victim).toBeDefined();
    const names = (await leases()).filter((l) => l.holder?.pid === pid).map((l) => l.name);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    projectors.splice(projectors.indexOf(victim), 1);
    await awaitTakeover(pid, names, killedAt);
    await startOneProjector();
  }

  // A holder paused past its lease (a long GC, a frozen VM): taken over once it lapses, and on waking it writes nothing under it.
  const pausedPid = await holderOfProjections();
  const paused = projectors.find((p) => p.child.pid === pausedPid)!;
  const pausedLeases = (await leases()).filter((l) => l.holder?.pid === pausedPid).map((l) => l.name);
  paused.child.kill('SIGSTOP');
  const pausedAt = Date.now();
  await awaitTakeover(pausedPid, pausedLeases, pausedAt);
  paused.child.kill('SIGCONT');
  // Awake, it finds its lease gone and stops that work (its writes under the lease are refused meanwhile: the checks below).
  await until(async () => paused.output().includes('Lost the lease projections'), 'the woken holder to stop its work', 30_000);

  loading = false;
  await Promise.all([...writers, alerts]);

  // Every escalation runs to its end (two rounds of three steps).
  /** The whole timeline, page by page. */
  const timeline = async (id: string) => {
    const events: any[] = [];
    let cursor: string | null = null;
    do {
      const page: { events: any[]; next_cursor: string | null } = await call('GET', `/api/v1/incidents/${id}/timeline?order=asc&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, READER);
      events.push(...page.events);
      cursor = page.next_cursor;
    } while (cursor);
    return events;
  };
  await until(async () => (await Promise.all(alerted.map(timeline))).every((events) => events.some((e) => e.event_type === 'im.paging.exhausted')), 'every escalation to end', 180_000);

  // The ledger: every acknowledged event once; every read model has applied the whole log.
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    const head = (await db.query('SELECT position FROM event_log_head')).rows[0].position as string;
    await until(async () => {
      const { rows } = await db.query('SELECT min(position) AS lowest, count(*) AS n FROM rm_checkpoints');
      return BigInt(rows[0].lowest) >= BigInt(head) && Number(rows[0].n) > 5;
    }, 'every read model at the head');
    const { rows } = await db.query('SELECT event_id, count(*)::int AS n FROM events WHERE event_id = ANY($1) GROUP BY event_id', [acknowledged]);
    expect(rows.length).toBe(acknowledged.length);
    expect(rows.filter((row) => row.n !== 1)).toEqual([]);
  } finally {
    await db.end();
  }
  // In the read models: each note in its incident's timeline, each alert's incident listed.
  const notes = new Set((await Promise.all(incidents.map(timeline))).flat().map((e) => e.id));
  const alertTimelines = await Promise.all(alerted.map(timeline));
  const shown = new Set([...notes, ...alertTimelines.flat().map((e) => e.id)]);
  expect(acknowledged.filter((id) => !shown.has(id))).toEqual([]);

  // Webhooks: every receiver, every acknowledged note, verified; a repeat only under the same webhook-id.
  let repeats = 0;
  for (const receiver of receivers) {
    await receiver.waitFor(() => {
      const seen = new Set(receiver.received.map((r) => r.event?.id));
      return notesAcknowledged.every((id) => seen.has(id));
    }, 120_000);
    expect(receiver.received.filter((r) => r.verifyError !== undefined)).toEqual([]);
    const webhookIds = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const ids = webhookIds.get(r.event!.id) ?? new Set();
      ids.add(String(r.headers['webhook-id']));
      webhookIds.set(r.event!.id, ids);
    }
    expect([...webhookIds.values()].filter((ids) => ids.size > 1)).toEqual([]);
    repeats += receiver.received.length - webhookIds.size;
  }

  // Pages: in the ledger once per (incident, round, step, user); by mail under one Message-ID each.
  const pages = alertTimelines.flatMap((events, i) =>
    events.filter((e) => e.event_type === 'im.paging.page').flatMap((e) => (e.data.paged as { user: string }[]).map(({ user }) => `${alerted[i]} ${e.data.round}/${e.data.step} ${user}`)),
  );
  expect(new Set(pages).size).toBe(pages.length);
  expect(pages.length).toBe(alerted.length * 2 * RESPONDERS.length);
  await until(async () => mail.mails.filter((m) => m.header('subject')?.includes('Paged:')).length >= pages.length, 'a mail for every page', 60_000);
  const mailed = new Map<string, Set<string>>();
  for (const m of mail.mails.filter((m) => m.header('subject')?.includes('Paged:'))) {
    const incident = /Paged: (INC-\S+):/.exec(m.header('subject')!)![1];
    const [, step, round] = /escalation step (\d+), round (\d+)/.exec(m.text)!;
    const key = `${incident} ${round}/${step} ${m.to.join(',')}`;
    mailed.set(key, (mailed.get(key) ?? new Set()).add(m.header('message-id')!));
  }
  expect(mailed.size).toBe(pages.length);
  expect([...mailed].filter(([, ids]) => ids.size > 1)).toEqual([]);
  const pageMails = mail.mails.filter((m) => m.header('subject')?.includes('Paged:')).length;

  expect(takeovers.filter((ms) => ms >= TAKEOVER_LIMIT_MS)).toEqual([]);
  const sorted = [...takeovers.slice(0, KILLS)].sort((a, b) => a - b);
  console.info(
    [
      `failover on PostgreSQL: 2 apis, 2 projectors, ${KILLS} SIGKILLs of the lease holder, then one SIGSTOP past its lease`,
      `  events acknowledged: ${acknowledged.length} (${alerted.length} alerts opening paged incidents); not acknowledged: ${unanswered.length}`,
      `  takeover after SIGKILL, ms: median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted[sorted.length - 1]}; after SIGSTOP (the lease lapsing): ${takeovers[KILLS]}`,
      `  webhook deliveries: ${receivers.reduce((n, r) => n + r.received.length, 0)} to ${WEBHOOKS} receivers, repeats (same webhook-id): ${repeats}`,
      `  pages: ${pages.length}, each once in the ledger; page mails: ${pageMails} (${pageMails - pages.length} sent again under the same Message-ID); SMTP connections reset in mid-mail by a kill: ${mail.connectionErrors.length}`,
    ].join('\n'),
  );
});
