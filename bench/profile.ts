/**
 * `npm run bench:profile -- <workload>`: profiles the built api while one
 * workload drives it (the profiler started once the api is up and has
 * caught up, stopped when the workload ends), then prints where the CPU time
 * went (self time by function and by package). `graphql-ceiling` profiles
 * bench/graphql-ceiling.server.ts under the graphql workload instead, to
 * compare with `graphql`. With `--sql` after the workload, it times each
 * SQLite statement instead (bench/support/sql-time.preload.js) and prints the
 * time and calls per statement. With `--heap`, it samples allocations instead
 * (bench/support/heap-profile.preload.js) and prints the bytes allocated by
 * function and by package. Used before every optimisation recorded in
 * docs/benchmarks.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { API_MAIN, NODE_FLAGS, PRODUCTION_NODE_ENV } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { listeningUrl, load, percentile } from './support/load';
import { ALERTS_PER_SEND, sendStorm } from './alert-storm.bench';
import { seedLedger, uniqueEvents } from './timeline.bench';
import { GRAPHQL_READER, INCIDENT_STATUS, MY_INCIDENTS, seed as seedIncidents } from './graphql.bench';
import { run as webhookRun } from './webhook-delivery.bench';

const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const GRAPHQL_AUTH = `Bearer ${token(GRAPHQL_READER, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per key, in percent of all samples, highest first. */
function selfTime(profile: CpuProfile, keyOf: (node: ProfileNode) => string, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const key = keyOf(byId.get(id)!);
    totals.set(key, (totals.get(key) ?? 0) + profile.timeDeltas[i]);
    all += profile.timeDeltas[i];
  });
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, t]) => `${((100 * t) / all).toFixed(1).padStart(5)}%  ${key}`);
}

const packageOf = ({ callFrame: { url, functionName } }: Pick<ProfileNode, 'callFrame'>) => {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return 'node core';
  return url.includes('/dist/') ? 'service code' : url;
};

const functionOf = ({ callFrame: { url, functionName, lineNumber } }: Pick<ProfileNode, 'callFrame'>) =>
  `${functionName || '(anonymous)'} ${url.split('/').slice(-1)[0]}:${lineNumber + 1}`;

const WORKLOADS: Record<string, (url: string, pid: number) => Promise<unknown>> = {
  async appends(url) {
    const created = await fetch(`${url}/api/v1/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Profile', severity: 'SEV-3' }),
    });
    const { id } = (await created.json()) as { id: string };
    return load({
      url: `${url}/api/v1/timeline/events`,
      headers: { 'content-type': 'application/cloudevents+json', authorization: AUTH },
      requests: [uniqueEvents(`incident/${id}`)],
      duration: 15,
    });
  },
  'alert-storm': sendStorm,
  // As bench/webhook-delivery.bench.ts drives it: 100 registrations, notes at 100/s (10,000 deliveries a second), 15 s.
  async webhooks(url, pid) {
    const run = await webhookRun(15, false, undefined, (work) => work(url, '', pid));
    return { requests: run.requests, delivered: run.lagsMs.length, missing: run.missing, lagP50: percentile(run.lagsMs, 50), lagP99: percentile(run.lagsMs, 99) };
  },
  'page-1000': (url) =>
    load({ url: `${url}/api/v1/incidents/INC-00000010/timeline?limit=1000`, headers: { authorization: AUTH }, duration: 15 }),
  // As bench/graphql.bench.ts asks it, on its 10,000 seeded incidents.
  graphql: (url) => graphqlQuery(url, MY_INCIDENTS, { authorization: GRAPHQL_AUTH }),
  'incident-status': (url) => graphqlQuery(url, INCIDENT_STATUS, { authorization: GRAPHQL_AUTH }),
  // The same query against the framework ceiling (no token: it checks none).
  'graphql-ceiling': (url) => graphqlQuery(url, MY_INCIDENTS, {}),
};

function graphqlQuery(url: string, query: string, headers: Record<string, string>) {
  return load({
    url: `${url}/api/v1/graphql`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    duration: 15,
  });
}

const SQL_TIME = process.argv.includes('--sql');
const HEAP = process.argv.includes('--heap');
const PROFILER_PRELOAD = join(__dirname, 'support', SQL_TIME ? 'sql-time.preload.js' : HEAP ? 'heap-profile.preload.js' : 'cpu-profile.preload.js');
const PROFILE_SUFFIX = SQL_TIME ? 'sqltime.json' : HEAP ? 'heapprofile' : 'cpuprofile';
const GRAPHQL_CEILING = join(__dirname, 'graphql-ceiling.server.ts');

/** The profiled server: the built api on `dataDir`, or the GraphQL ceiling. */
function startProfiled(workload: string, dataDir: string, profileDir: string): ChildProcess {
  const env = { ...process.env, ...PRODUCTION_NODE_ENV, BENCH_CPU_PROF_DIR: profileDir, BENCH_CPU_PROF_WINDOW: '1', NO_COLOR: '1' };
  const stdio: ['ignore', 'pipe', 'inherit'] = ['ignore', 'pipe', 'inherit'];
  if (workload === 'graphql-ceiling') {
    return spawn(process.execPath, ['-r', PROFILER_PRELOAD, '-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', GRAPHQL_CEILING], { env, stdio });
  }
  // The webhook bench's receivers are on loopback.
  const webhooks = workload === 'webhooks' ? { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } : {};
  return spawn(process.execPath, [...NODE_FLAGS, '-r', PROFILER_PRELOAD, API_MAIN], { env: { ...env, ...webhooks, DATA_DIR: dataDir, PORT: '0', APP_ENV: 'development' }, stdio });
}

/** Waits for the profile the preload writes when told to stop. */
async function written(file: string): Promise<void> {
  for (let waited = 0; !existsSync(file); waited += 100) {
    if (waited > 30_000) throw new Error(`no profile written to ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function report(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log('\nSelf time by package:\n' + selfTime(profile, packageOf, 20).join('\n'));
  console.log('\nSelf time by function:\n' + selfTime(profile, functionOf, 40).join('\n'));
}

/** Time per SQLite statement, highest first, in ms and per call. */
function reportSqlTime(file: string): void {
  const rows = (JSON.parse(readFileSync(file, 'utf8')) as [string, number, number][]).sort((a, b) => b[1] - a[1]);
  const all = rows.reduce((sum, [, ns]) => sum + ns, 0);
  console.log(`\nSQLite statements: ${(all / 1e6).toFixed(0)} ms in all\n   ms    calls  µs/call  statement`);
  for (const [text, ns, calls] of rows.slice(0, 25)) {
    console.log(`${(ns / 1e6).toFixed(0).padStart(5)} ${String(calls).padStart(8)} ${(ns / calls / 1000).toFixed(1).padStart(8)}  ${text.slice(0, 150)}`);
  }
}

interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated by function and by package, in all and per request of the workload. */
function reportAllocations(file: string, requests: number): void {
  const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let all = 0;
  const add = (totals: Map<string, number>, key: string, bytes: number) => totals.set(key, (totals.get(key) ?? 0) + bytes);
  const visit = (node: HeapNode) => {
    add(byFunction, functionOf(node), node.selfSize);
    add(byPackage, packageOf(node), node.selfSize);
    all += node.selfSize;
    node.children.forEach(visit);
  };
  visit(head);
  const top = (totals: Map<string, number>, n: number) =>
    [...totals.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, bytes]) => `${((100 * bytes) / all).toFixed(1).padStart(5)}% ${(bytes / requests / 1024).toFixed(1).padStart(8)} kB/request  ${key}`)
      .join('\n');
  console.log(`\nAllocated (sampled): ${(all / 2 ** 20).toFixed(0)} MiB, ${(all / requests / 1024).toFixed(1)} kB per request of the workload (per alert for alert-storm)`);
  console.log('\nBy package:\n' + top(byPackage, 15));
  console.log('\nBy function:\n' + top(byFunction, 40));
}

async function main() {
  const workload = process.argv[2] ?? 'appends';
  // A profile written elsewhere (a bench run with BENCH_CPU_PROF_DIR): only the report.
  if (workload.endsWith('.cpuprofile')) return report(workload);
  if (!WORKLOADS[workload]) throw new Error(`workload is one of ${Object.keys(WORKLOADS).join(', ')}`);
  const data = tempDir('bench-profile');
  const profiles = tempDir('bench-cpuprofile');
  // 20 incidents of 1,000 events: the page is full.
  if (workload === 'page-1000') await seedLedger(data.path, 20_000, 20);
  if (workload === 'graphql' || workload === 'incident-status') await seedIncidents(data.path);
  const child = startProfiled(workload, data.path, profiles.path);
  const url = await listeningUrl(child);
  // Let the start-up catch-up finish so the profile shows the workload alone.
  await new Promise((r) => setTimeout(r, ['page-1000', 'graphql', 'incident-status'].includes(workload) ? 8000 : 500));
  child.kill('SIGUSR2');
  const result = await WORKLOADS[workload](url, child.pid!);
  console.log(`${workload}:`, result);
  child.kill('SIGUSR2');
  const file = join(profiles.path, `${child.pid}.${PROFILE_SUFFIX}`);
  await written(file);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  if (SQL_TIME) reportSqlTime(file);
  // The storm workload answers its report, not a count: "per request" is per alert it sent.
  else if (HEAP) reportAllocations(file, workload === 'alert-storm' ? ALERTS_PER_SEND : (result as { requests: number }).requests);
  else report(file);
  data.remove();
  if (process.env.KEEP_PROFILE) console.log(`\nProfile kept: ${file}`);
  else profiles.remove();
}

void main();
