/**
 * Issue 49: 1,000 incidents escalating at once all page within 5 s of their
 * due times, the delay measured from the due time to the page's mail
 * accepted by a local SMTP server. The built api with SMTP_URL at
 * test/support/mail-receiver.ts (smtp-server); two responders who chose
 * mail; a policy paging A at step 1 and B at step 2 after DELAY_S; a service
 * with that policy and an integration key; 1,000 incidents opened by
 * Alertmanager alerts sent with the key. `node -r tsx/cjs bench/paging.bench.ts`,
 * or `npm run bench -- paging`.
 */
import { loadavg } from 'node:os';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { MailReceiver, type ReceivedMail } from '../test/support/mail-receiver';
import { token } from '../test/support/tokens';
import { cpuMs } from './support/cpu-time';
import { percentile, withBuiltServer } from './support/load';

const INCIDENTS = 1000;
const PER_PAYLOAD = 100;
const CONNECTIONS = 4;
/** Step 1's delay: long enough that every opening, its step-1 page and its mail are done before the first step 2 falls due. */
const DELAY_S = 30;
/** Step 2's own delay: nothing more happens within the run. */
const LAST_STEP_S = 3600;
const TARGET_MS = 5000;
const [PAGER_A, PAGER_B] = ['pager-a', 'pager-b'];
const emailOf = (sub: string) => `${sub}@example.com`;

const ADMIN = `Bearer ${token({ sub: 'bench-admin', roles: ['oncall.admin', 'integrations.admin', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const responder = (sub: string) => `Bearer ${token({ sub, email: emailOf(sub), roles: ['timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call<T = any>(url: string, method: string, path: string, auth: string, body?: object): Promise<T> {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  const answer = JSON.parse(text);
  if (answer?.errors) throw new Error(`${path}: ${JSON.stringify(answer.errors)}`);
  return answer as T;
}

/** Version-4 Alertmanager payloads of PER_PAYLOAD alerts, each alert its own fingerprint: one incident per alert. */
function payloads(): string[] {
  const startsAt = new Date().toISOString();
  return Array.from({ length: INCIDENTS / PER_PAYLOAD }, (_, p) =>
    JSON.stringify({
      receiver: 'paging-bench',
      status: 'firing',
      alerts: Array.from({ length: PER_PAYLOAD }, (_, n) => {
        const i = p * PER_PAYLOAD + n;
        return {
          status: 'firing',
          labels: { alertname: 'NodeDown', severity: 'critical', instance: `node-${i}:9100`, job: 'node' },
          annotations: { summary: `Node ${i} down` },
          startsAt,
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: 'http://prometheus.example:9090/graph',
          fingerprint: `page${i.toString(16).padStart(12, '0')}`,
        };
      }),
      groupLabels: { alertname: 'NodeDown' },
      commonLabels: { alertname: 'NodeDown', severity: 'critical', job: 'node' },
      commonAnnotations: {},
      externalURL: 'http://alertmanager.example:9093',
      version: '4',
      groupKey: `{}:{alertname="NodeDown",batch="${p}"}`,
      truncatedAlerts: 0,
    }),
  );
}

/** The api's CPU so far (ms): all threads, and the main thread (the event loop) alone. */
const apiCpu = (pid: number) => ({ all: cpuMs(`/proc/${pid}`), main: cpuMs(`/proc/${pid}/task/${pid}`) });
type Cpu = ReturnType<typeof apiCpu>;
const cpuShare = (from: Cpu, to: Cpu, ms: number) => `${Math.round(((to.all - from.all) / ms) * 100)} % (main thread ${Math.round(((to.main - from.main) / ms) * 100)} %)`;

const incidentOf = (mail: ReceivedMail) => mail.header('subject')?.match(/Paged: (\S+):/)?.[1];

async function waitForMails(smtp: MailReceiver, address: string, count: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (smtp.to(address).length < count && Date.now() < until) await sleep(100);
}

interface PageTimes {
  step1: number;
  step2?: number;
}

/** Each incident's step-1 and step-2 page times (event_time), from its timeline. */
async function pageTimes(url: string, ids: string[]): Promise<Map<string, PageTimes>> {
  const times = new Map<string, PageTimes>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const { events } = await call<{ events: { event_time: string; data: { step: number } }[] }>(url, 'GET', `/api/v1/incidents/${id}/timeline?type=im.paging.page&order=asc`, ADMIN);
        const at = (step: number) => events.find((e) => e.data.step === step)?.event_time;
        times.set(id, { step1: Date.parse(at(1)!), ...(at(2) ? { step2: Date.parse(at(2)!) } : {}) });
      }
    }),
  );
  return times;
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
};
const row = (what: string, values: number[]) => {
  const s = stats(values);
  return `| ${what} | ${values.length} | ${s.p50} | ${s.p95} | ${s.p99} | ${s.max} | ${values.filter((v) => v <= TARGET_MS).length} |`;
};

export async function pagingDelays(): Promise<string> {
  const smtp = new MailReceiver();
  const env = { SMTP_URL: await smtp.start(), NOTIFY_FROM: 'Incidents <im@example.com>', CONSOLE_URL: 'https://im.example.com', LOG_LEVEL: 'warn' };
  const loadBefore = loadavg();
  try {
    const run = await withBuiltServer('bench-paging', env, async (url, _dir, pid) => {
      const settings = 'mutation S($input: NotificationPreferencesInput!) { updateNotificationSettings(input: $input) { userId } }';
      for (const sub of [PAGER_A, PAGER_B]) await call(url, 'POST', '/api/v1/graphql', responder(sub), { query: settings, variables: { input: { channels: ['email'] } } });
      const steps = [
        { delay_seconds: DELAY_S, targets: [{ type: 'user', id: PAGER_A }] },
        { delay_seconds: LAST_STEP_S, targets: [{ type: 'user', id: PAGER_B }] },
      ];
      const policy = await call(url, 'POST', '/api/v1/escalation-policies', ADMIN, { name: 'Bench', steps, repeat: 0 });
      const service = await call(url, 'POST', '/api/v1/services', ADMIN, { name: 'Nodes', escalation_policy_id: policy.id });
      const key = (await call(url, 'POST', '/api/v1/integration-keys', ADMIN, { name: 'prometheus', roles: ['timeline.writer'], service_id: service.id })).key as string;

      const cpuStart = apiCpu(pid);
      const opening = Date.now();
      const bodies = payloads();
      const ids: string[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < bodies.length) {
            const answer = await call<{ results: { status: number; incident_id: string }[] }>(url, 'POST', '/api/v1/integrations/alertmanager', `Bearer ${key}`, JSON.parse(bodies[next++]));
            for (const result of answer.results) {
              if (result.status !== 201) throw new Error(`alert not stored: ${JSON.stringify(result)}`);
              ids.push(result.incident_id);
            }
          }
        }),
      );
      const opened = Date.now();
      await waitForMails(smtp, emailOf(PAGER_A), INCIDENTS, DELAY_S * 1000);
      const step1Mailed = smtp.to(emailOf(PAGER_A)).length;
      const step1Done = Date.now();
      const cpuStep1 = apiCpu(pid);

      const firstDue = Math.min(...[...(await pageTimes(url, ids)).values()].map((t) => t.step1)) + DELAY_S * 1000;
      await sleep(Math.max(0, firstDue - Date.now()));
      const cpuDue = apiCpu(pid);
      const dueAt = Date.now();
      await waitForMails(smtp, emailOf(PAGER_B), INCIDENTS, 180_000);
      const cpuEnd = apiCpu(pid);
      const endAt = Date.now();
      return { ids, times: await pageTimes(url, ids), opening, opened, step1Mailed, step1Done, firstDue, cpu: { start: cpuStart, step1: cpuStep1, due: cpuDue, end: cpuEnd }, dueAt, endAt };
    });
    const loadAfter = loadavg();

    const byIncident = new Map(smtp.to(emailOf(PAGER_B)).map((mail) => [incidentOf(mail)!, mail]));
    const step1Mails = new Map(smtp.to(emailOf(PAGER_A)).map((mail) => [incidentOf(mail)!, mail]));
    const delays: number[] = [];
    const runnerLags: number[] = [];
    const mailLags: number[] = [];
    const step1Delays: number[] = [];
    for (const id of run.ids) {
      const times = run.times.get(id)!;
      const due = times.step1 + DELAY_S * 1000;
      const mail = byIncident.get(id);
      const first = step1Mails.get(id);
      if (first) step1Delays.push(first.receivedAt - times.step1);
      if (times.step2 !== undefined) runnerLags.push(times.step2 - due);
      if (!mail) continue;
      delays.push(mail.receivedAt - due);
      if (times.step2 !== undefined) mailLags.push(mail.receivedAt - times.step2);
    }
    const received = [...byIncident.values()].map((m) => m.receivedAt).sort((a, b) => a - b);
    const lastDue = Math.max(...run.ids.map((id) => run.times.get(id)!.step1)) + DELAY_S * 1000;
    const mailSpan = (received[received.length - 1] - received[0]) / 1000;
    const total = (received[received.length - 1] - run.firstDue) / 1000;
    const within = delays.filter((d) => d <= TARGET_MS).length;
    const s = stats(delays);
    const load = (l: number[]) => l.map((v) => v.toFixed(2)).join(', ');

    return [
      '## Paging: 1,000 incidents escalating at once',
      '',
      `Issue 49's target: 1,000 incidents escalating at once all page within ${TARGET_MS / 1000} s of their due times, the delay measured from the due time to the page's mail accepted by a local SMTP server (\`bench/paging.bench.ts\`). The built api (embedded store, embedded projector and timers) with \`SMTP_URL\` at \`test/support/mail-receiver.ts\` (smtp-server, in the load generator's process); two responders who saved mail as their channel; a policy paging A at step 1 and B at step 2 after ${DELAY_S} s; a service with that policy and an integration key; ${INCIDENTS.toLocaleString('en')} incidents opened by Alertmanager alerts sent with the key (${INCIDENTS / PER_PAYLOAD} payloads of ${PER_PAYLOAD} alerts, one fingerprint each, over ${CONNECTIONS} connections). An incident's step 2 is due at its step-1 page's \`event_time\` + ${DELAY_S} s; its delay is the receipt of B's mail about it less that. Load average (1, 5, 15 min) before the run ${load(loadBefore)}, after it ${load(loadAfter)}.`,
      '',
      `- Opened: ${run.ids.length} incidents in ${((run.opened - run.opening) / 1000).toFixed(1)} s; step 1's mails to A: ${run.step1Mailed} received ${((run.step1Done - run.opening) / 1000).toFixed(1)} s after the first alert was sent (api CPU meanwhile ${cpuShare(run.cpu.start, run.cpu.step1, run.step1Done - run.opening)} of one core).`,
      `- Step 2 fell due over ${((lastDue - run.firstDue) / 1000).toFixed(1)} s (the spread of the step-1 pages). Paged by mail: **${delays.length} of ${INCIDENTS}**, **${within} within ${TARGET_MS / 1000} s** of their due times.`,
      `- Total: from the first due time to the last step-2 mail ${total.toFixed(1)} s; B's mails arrived over ${mailSpan.toFixed(1)} s, ${Math.round(received.length / Math.max(mailSpan, 0.001))} mails/s; api CPU from the first due time to the last mail ${cpuShare(run.cpu.due, run.cpu.end, run.endAt - run.dueAt)} of one core.`,
      '',
      '| ms | count | p50 | p95 | p99 | max | ≤ 5,000 ms |',
      '|---|---|---|---|---|---|---|',
      row('**due → step-2 mail accepted** (the target)', delays),
      row('due → step-2 page appended (the timers)', runnerLags),
      row('step-2 page appended → its mail accepted (the notification channel and SMTP)', mailLags),
      row('step-1 page appended → its mail accepted (during the openings)', step1Delays),
      '',
      `p50/p95/p99/max: ${s.p50}/${s.p95}/${s.p99}/${s.max} ms.`,
    ].join('\n');
  } finally {
    await smtp.stop();
  }
}

export const paging = (): Promise<string> => pagingDelays();

if (require.main === module) {
  void pagingDelays().then(console.log, (error) => {
    console.error(error);
    process.exit(1);
  });
}
