import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { cpuMs } from './support/cpu-time';
import { listeningUrl, percentile, startTsServer, withBuiltServer } from './support/load';
import { tsWorker } from './support/ts-worker';
import type { ReceiversData, ReceiversReport, ToReceivers } from './webhook-receivers.worker';

const ADMIN = `Bearer ${token({ sub: 'bench', roles: ['webhooks.admin', 'timeline.writer', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const SUBSCRIPTIONS = 100;
const APPENDS_PER_SECOND = 100;
const INCIDENTS = 10;
/** After the last append, how long stragglers may take before they count as missing. */
const DRAIN_MS = 15_000;

const now = () => performance.timeOrigin + performance.now();
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

/** The receivers' thread (ts-node in the worker too): resolves `opened` with their urls. */
function receiversWorker(data: ReceiversData) {
  const { next, send, close } = tsWorker<ToReceivers>('webhook-receivers.worker.ts', data);
  return {
    opened: next('opened').then((message) => message.urls as string[]),
    secrets: async (secrets: string[]) => {
      const ready = next('ready');
      send({ type: 'secrets', secrets });
      await ready;
    },
    collect: async (waitMs: number, ids: string[]): Promise<ReceiversReport> => {
      const report = next('report');
      send({ type: 'collect', waitMs, ids });
      return (await report).report;
    },
    close,
  };
}

async function postJson(url: string, body: unknown, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { authorization: ADMIN, 'content-type': contentType }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

interface Run {
  lagsMs: number[];
  missing: number;
  appended: number;
  failedAppends: number;
  /** Requests the receivers took (repeats and the hanging one's included) and those that did not verify. */
  requests: number;
  badSignatures: number;
  /** CPU ms from the first append to the end of the drain: the api process, the receivers' thread. */
  apiCpuMs: number;
  receiversCpuMs: number;
  /** 1-minute load average at the start and the end (other work on the machine). */
  load: string;
}

type WithServer = (work: (url: string, dataDir: string, pid: number) => Promise<Run>) => Promise<Run>;

const withService: WithServer = (work) => withBuiltServer('bench-webhooks', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' }, work);

/** The ceiling (bench/bare-webhook.server.ts) takes the same requests as the service. */
const withBareSender: WithServer = async (work) => {
  const bare = startTsServer(join(__dirname, 'bare-webhook.server.ts'));
  try {
    return await work(await listeningUrl(bare), '', bare.pid!);
  } finally {
    bare.kill('SIGTERM');
  }
};

/** One run on a fresh server: 100 registrations, notes at 100/s for `seconds`; lag = first arrival − append sent, over the healthy receivers. */
export async function run(seconds: number, hanging: boolean, appendsPerSecond = APPENDS_PER_SECOND, withServer = withService): Promise<Run> {
  const receivers = receiversWorker({ count: SUBSCRIPTIONS, hanging: hanging ? 0 : -1 });
  try {
    const urls = await receivers.opened;
    return await withServer(async (url, _dir, pid) => {
      const secrets: string[] = [];
      for (const receiverUrl of urls) secrets.push((await postJson(`${url}/api/v1/webhooks`, { url: receiverUrl, event_types: ['im.incident.note'] })).secret as string);
      await receivers.secrets(secrets);
      const incidents: string[] = [];
      for (let i = 0; i < INCIDENTS; i += 1) incidents.push((await postJson(`${url}/api/v1/incidents`, { title: `bench ${i}`, severity: 'SEV-3' })).id as string);
      const sent = new Map<string, number>();
      let failedAppends = 0;
      const loadBefore = loadAverage();
      const apiCpuBefore = cpuMs(`/proc/${pid}`);
      const started = performance.now();
      const inFlight: Promise<unknown>[] = [];
      for (let n = 0; n < seconds * appendsPerSecond; n += 1) {
        const due = started + (n * 1000) / appendsPerSecond;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const id = randomUUID();
        const sentAt = now();
        const event = { specversion: '1.0', id, source: 'im://bench', type: 'im.incident.note', subject: `incident/${incidents[n % INCIDENTS]}`, time: new Date().toISOString(), data: { content: `note ${n}` } };
        // An append the server could not take (overloaded) is counted, not fatal: only acknowledged ones are awaited.
        inFlight.push(postJson(`${url}/api/v1/timeline/events`, event, 'application/cloudevents+json').then(() => sent.set(id, sentAt), () => (failedAppends += 1)));
      }
      await Promise.all(inFlight);
      const report = await receivers.collect(DRAIN_MS, [...sent.keys()]);
      const apiCpuMs = cpuMs(`/proc/${pid}`) - apiCpuBefore;
      const acknowledged = report.arrivals.flat();
      return {
        lagsMs: acknowledged.map(([id, at]) => at - sent.get(id)!).sort((a, b) => a - b),
        missing: report.arrivals.length * sent.size - acknowledged.length,
        appended: sent.size,
        failedAppends,
        requests: report.requests,
        badSignatures: report.badSignatures,
        apiCpuMs,
        receiversCpuMs: report.cpuMs,
        load: `${loadBefore} → ${loadAverage()}`,
      };
    });
  } finally {
    receivers.close();
  }
}

const cpuPerRequest = (r: Run) => (1000 * r.apiCpuMs) / Math.max(1, r.requests);
const receiversCpuPerRequest = (r: Run) => (1000 * r.receiversCpuMs) / Math.max(1, r.requests);

const row = (name: string, r: Run) =>
  `| ${name} | ${r.appended} (${r.failedAppends} refused) | ${r.lagsMs.length} | ${r.missing} | ${percentile(r.lagsMs, 50).toFixed(0)} | ${percentile(r.lagsMs, 99).toFixed(0)} | ${r.lagsMs.length ? r.lagsMs[r.lagsMs.length - 1].toFixed(0) : '-'} | ${r.requests} (${r.badSignatures} bad) | ${cpuPerRequest(r).toFixed(1)} | ${receiversCpuPerRequest(r).toFixed(1)} | ${r.load} |`;

/** A rate this machine keeps up with (found by trying 25, 40, 60 and 75 appends/s): what the target's rate is compared to. */
const SUSTAINED_APPENDS_PER_SECOND = 40;

/**
 * Webhook delivery lag: 100 registrations with loopback receivers, notes
 * appended at 100/s (10,000 deliveries a second), then the same with one
 * receiver that never answers, then 40/s with none hanging. Lag is from
 * sending the append to the first arrival at a healthy receiver.
 */
export async function webhookDelivery(seconds: number): Promise<string> {
  const ceiling = await run(seconds, false, APPENDS_PER_SECOND, withBareSender);
  const healthy = await run(seconds, false);
  const withHanging = await run(seconds, true);
  const sustained = await run(seconds, false, SUSTAINED_APPENDS_PER_SECOND);
  return [
    '## Webhook delivery',
    '',
    `${SUBSCRIPTIONS} registrations, receivers on loopback (bench/webhook-receivers.worker.ts: a thread of the load generator, each delivery verified with \`standardwebhooks\`), \`im.incident.note\` appended at ${APPENDS_PER_SECOND}/s for ${seconds} s over ${INCIDENTS} incidents: ${SUBSCRIPTIONS * APPENDS_PER_SECOND} deliveries a second. Lag: from sending the append to the event's first arrival, over the healthy receivers. The first run is the ceiling, \`bench/bare-webhook.server.ts\`: plain node:http taking the same requests and sending each note to every registration with the service's own sender (signed, the same connection pools, one delivery at a time per registration), and nothing else (no ledger, no delivery log, no checkpoints, no redaction, no retries). The third run has one receiver that never answers (WEBHOOK_TIMEOUT_MS 10 s). The fourth appends at ${SUSTAINED_APPENDS_PER_SECOND}/s (${SUBSCRIPTIONS * SUSTAINED_APPENDS_PER_SECOND} deliveries a second), a rate this machine keeps up with, for comparison.`,
    '',
    '| Run | Appends | Deliveries | Missing | Lag p50 ms | Lag p99 ms | Lag max ms | Requests taken | server CPU µs/request | receivers CPU µs/request | load avg |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    row('ceiling: bare sender, 100 healthy', ceiling),
    row('100 healthy', healthy),
    row('99 healthy + 1 hanging', withHanging),
    row(`100 healthy, ${SUSTAINED_APPENDS_PER_SECOND} appends/s`, sustained),
    '',
    `Same-run ratio, p99 with one hanging receiver to p99 without: ${(percentile(withHanging.lagsMs, 99) / percentile(healthy.lagsMs, 99)).toFixed(2)}.`,
    '',
    `Against the ceiling at the same rate: deliveries that arrived ${healthy.lagsMs.length} / ${ceiling.lagsMs.length}, lag p99 ${percentile(healthy.lagsMs, 99).toFixed(0)} / ${percentile(ceiling.lagsMs, 99).toFixed(0)} ms, server CPU per delivery ${cpuPerRequest(healthy).toFixed(1)} / ${cpuPerRequest(ceiling).toFixed(1)} µs (${(cpuPerRequest(healthy) / cpuPerRequest(ceiling)).toFixed(1)} ×), and the machine's whole CPU for the ceiling's mix, server and receivers: ${((SUBSCRIPTIONS * APPENDS_PER_SECOND * (cpuPerRequest(ceiling) + receiversCpuPerRequest(ceiling))) / 1e6).toFixed(2)} of ${cpus().length} cores.`,
  ].join('\n');
}
