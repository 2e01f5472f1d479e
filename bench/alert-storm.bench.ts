import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { cpus } from 'node:os';
import { token } from '../test/support/tokens';
import { cpuMs } from './support/cpu-time';
import { percentile, withBuiltServer } from './support/load';

const AUTH = `Bearer ${token({ sub: 'alertmanager', roles: ['timeline.writer', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const FINGERPRINTS = 100;
const ALERTS = 10_000;
const PER_PAYLOAD = 100;
const CONNECTIONS = 8;

/**
 * An alert storm as Alertmanager sends it: 10,000 firing alerts over 100
 * fingerprints (each fingerprint re-fires 100 times, a new startsAt each
 * time, so every alert is a new event), in version-4 payloads of 100 alerts,
 * one round of every fingerprint per payload, over 8 connections.
 * `prefix` starts each fingerprint: another prefix is another 100 incidents.
 */
function payloads(prefix: string): string[] {
  const base = Date.UTC(2026, 10, 23, 14, 0, 0);
  return Array.from({ length: ALERTS / PER_PAYLOAD }, (_, round) =>
    JSON.stringify({
      receiver: 'storm',
      status: 'firing',
      alerts: Array.from({ length: PER_PAYLOAD }, (_, n) => {
        const fingerprint = `${prefix}${(n % FINGERPRINTS).toString(16).padStart(16 - prefix.length, '0')}`;
        const labels = { alertname: `Storm${n % FINGERPRINTS}`, severity: 'critical', service: 'checkout', instance: `node-${n % FINGERPRINTS}:9100`, job: 'node' };
        return {
          status: 'firing',
          labels,
          annotations: { summary: `Checkout node ${n % FINGERPRINTS} down`, description: 'Target is not answering scrapes.' },
          startsAt: new Date(base + round * 1000).toISOString(),
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: `http://prometheus.example:9090/graph?g0.expr=up%3D%3D0&n=${n}`,
          fingerprint,
        };
      }),
      groupLabels: {},
      commonLabels: { severity: 'critical', service: 'checkout', job: 'node' },
      commonAnnotations: {},
      externalURL: 'http://alertmanager.example:9093',
      version: '4',
      groupKey: '{}:{}',
      truncatedAlerts: 0,
    }),
  );
}

/** Counts the incidents on the server (all of them: the data directory is fresh). */
async function incidentCount(url: string): Promise<number> {
  let count = 0;
  let next: string | undefined = `${url}/api/v1/incidents?limit=100`;
  while (next) {
    const res: Response = await fetch(next, { headers: { authorization: AUTH } });
    count += ((await res.json()) as unknown[]).length;
    next = res.headers.get('link')?.match(/<([^>]+)>;\s*rel="next"/)?.[1];
    if (next && next.startsWith('/')) next = `${url}${next}`;
  }
  return count;
}

interface StormRun {
  rate: number;
  p50: number;
  p99: number;
  stored: number;
  errors: string[];
  /** Incidents the storm opened (the server's count after it, less the count before). */
  opened: number;
  /** CPU per alert (µs) while the storm was sent, when the api's pid is known. */
  cpu?: StormCpu;
}

interface StormCpu {
  apiMain: number;
  /** The api's other threads: ledger chaining, the read models' writer, V8's garbage-collection helpers, libuv's pool (fdatasync). */
  apiOthers: number;
  /** This process: the load generator, on the same cores. */
  client: number;
}

/** CPU time so far (ms) of the api's main thread, of the whole api process, and of this process. */
function cpuNow(pid: number) {
  const own = process.cpuUsage();
  return { apiMain: cpuMs(`/proc/${pid}/task/${pid}`), api: cpuMs(`/proc/${pid}`), client: (own.user + own.system) / 1000 };
}

function cpuPerAlert(before: ReturnType<typeof cpuNow>, after: ReturnType<typeof cpuNow>): StormCpu {
  const perAlert = (ms: number) => Math.round((ms * 1000) / ALERTS);
  return {
    apiMain: perAlert(after.apiMain - before.apiMain),
    apiOthers: perAlert(after.api - before.api - (after.apiMain - before.apiMain)),
    client: perAlert(after.client - before.client),
  };
}

/** The rates the storm's CPU allows: with the whole machine's cores, and with the api's main thread alone. */
function ceilings({ apiMain, apiOthers, client }: StormCpu): string {
  return `${Math.round((cpus().length * 1e6) / (apiMain + apiOthers + client))} | ${Math.round(1e6 / apiMain)}`;
}

/** Sends one storm of the fingerprints starting with `prefix` and measures it. */
export async function storm(url: string, prefix: string, pid?: number): Promise<StormRun> {
  const bodies = payloads(prefix);
  const before = await incidentCount(url);
  const latencies: number[] = [];
  const errors: string[] = [];
  let stored = 0;
  let next = 0;
  const cpuBefore = pid === undefined ? undefined : cpuNow(pid);
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const sent = process.hrtime.bigint();
        const res = await fetch(`${url}/api/v1/integrations/alertmanager`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body });
        const answer = (await res.json()) as { results?: { status: number }[] };
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        if (res.status !== 200) errors.push(`${res.status} ${JSON.stringify(answer)}`);
        for (const result of answer.results ?? []) {
          if (result.status === 201) stored++;
          else errors.push(JSON.stringify(result));
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = pid === undefined ? undefined : cpuPerAlert(cpuBefore!, cpuNow(pid));
  latencies.sort((a, b) => a - b);
  const [p50, p99] = [50, 99].map((p) => Math.round(percentile(latencies, p)));
  return { rate: Math.round(ALERTS / seconds), p50, p99, stored, errors, opened: (await incidentCount(url)) - before, cpu };
}

/** The alerts `sendStorm` sends: two storms. */
export const ALERTS_PER_SEND = 2 * ALERTS;

/**
 * Sends two storms to a running api, each of 100 new fingerprints, and
 * answers the report: the first meets a server that has just started (V8
 * still compiling the code the storm runs), the second the same server
 * afterwards, as a storm meets a service that has been running.
 */
export async function sendStorm(url: string, pid?: number): Promise<string> {
  const runs: [string, StormRun][] = [
    ['first storm, server just started', await storm(url, 'storm', pid)],
    ['second storm, 100 other fingerprints, same server', await storm(url, 'later', pid)],
  ];
  const firstError = runs.flatMap(([, run]) => run.errors)[0];
  return [
    '## Alert storm through the Alertmanager receiver',
    '',
    `${ALERTS.toLocaleString('en')} firing alerts over ${FINGERPRINTS} fingerprints (each re-firing ${ALERTS / FINGERPRINTS} times with a new startsAt, so every alert is a new ledger event), sent as Alertmanager version-4 payloads of ${PER_PAYLOAD} alerts to \`POST /api/v1/integrations/alertmanager\` over ${CONNECTIONS} connections (\`bench/alert-storm.bench.ts\`). Two storms, one after the other, on one server started on a fresh data directory: the first meets a process whose code V8 has not compiled yet (its first payloads, which open the 100 incidents, take about three times as long as later ones); the second, of 100 other fingerprints, meets the same process warm, as a storm meets a service that has been running. Targets (issue 15): ≥ 5,000 alerts/s, p99 per payload ≤ 250 ms, 0 errors, exactly ${FINGERPRINTS} incidents per storm, read on the second storm, as the GraphQL, content-modes and alert-flood sections read a warmed server; the first is shown for what a storm meeting the service in its first seconds gets (docs/decisions.md, "The storm target is a running service's").`,
    '',
    '| storm | alerts/s | p50 ms per payload | p99 ms per payload | alerts stored | errors | incidents opened |',
    '|---|---|---|---|---|---|---|',
    ...runs.map(([name, run]) => `| ${name} | **${run.rate}** | ${run.p50} | ${run.p99} | ${run.stored} | ${run.errors.length} | ${run.opened} |`),
    ...(firstError ? ['', `First error: \`${firstError.slice(0, 300)}\``] : []),
    ...(runs[0][1].cpu
      ? [
          '',
          `Where the CPU went, per alert, while each storm was sent (user + system from /proc, 10 ms resolution), and the rates it allows: with all ${cpus().length} cores doing nothing else (the machine's ceiling for this mix), and with the api's main thread alone as the limit.`,
          '',
          "| storm | api main thread µs | api's other threads µs | load generator µs | machine ceiling alerts/s | main-thread ceiling alerts/s |",
          '|---|---|---|---|---|---|',
          ...runs.map(([name, { cpu }]) => `| ${name} | ${cpu!.apiMain} | ${cpu!.apiOthers} | ${cpu!.client} | ${ceilings(cpu!)} |`),
        ]
      : []),
  ].join('\n');
}

export const alertStorm = (): Promise<string> => withBuiltServer('bench-alert-storm', {}, (url, _dataDir, pid) => sendStorm(url, pid));

if (require.main === module) void alertStorm().then(console.log);
