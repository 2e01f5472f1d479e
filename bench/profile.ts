/**
 * `npm run bench:profile -- <workload>`: runs the built api under
 * `node --cpu-prof` while one workload drives it, then prints where the CPU
 * time went (self time by function and by package). Used before every
 * optimisation recorded in docs/benchmarks.md.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { API_MAIN } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { listeningUrl, load } from './support/load';
import { sendStorm } from './alert-storm.bench';
import { seedLedger, uniqueEvents } from './timeline.bench';
import { GRAPHQL_READER, MY_INCIDENTS, seed as seedIncidents } from './graphql.bench';

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

const packageOf = ({ callFrame: { url, functionName } }: ProfileNode) => {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return 'node core';
  return url.includes('/dist/') ? 'service code' : url;
};

const functionOf = ({ callFrame: { url, functionName, lineNumber } }: ProfileNode) =>
  `${functionName || '(anonymous)'} ${url.split('/').slice(-1)[0]}:${lineNumber + 1}`;

const WORKLOADS: Record<string, (url: string) => Promise<unknown>> = {
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
  'page-1000': (url) =>
    load({ url: `${url}/api/v1/incidents/INC-00000010/timeline?limit=1000`, headers: { authorization: AUTH }, duration: 15 }),
  // As bench/graphql.bench.ts asks it, on its 10,000 seeded incidents.
  graphql: (url) =>
    load({
      url: `${url}/api/v1/graphql`,
      method: 'POST',
      headers: { authorization: GRAPHQL_AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ query: MY_INCIDENTS }),
      duration: 15,
    }),
};

function report(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log('\nSelf time by package:\n' + selfTime(profile, packageOf, 20).join('\n'));
  console.log('\nSelf time by function:\n' + selfTime(profile, functionOf, 40).join('\n'));
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
  if (workload === 'graphql') await seedIncidents(data.path);
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles.path}`, API_MAIN], {
    env: { ...process.env, DATA_DIR: data.path, PORT: '0', NO_COLOR: '1', APP_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(child);
  // Let the start-up catch-up finish so the profile shows the workload alone.
  await new Promise((r) => setTimeout(r, workload === 'page-1000' || workload === 'graphql' ? 8000 : 500));
  console.log(`${workload}:`, await WORKLOADS[workload](url));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const file = readdirSync(profiles.path).find((f) => f.endsWith('.cpuprofile'))!;
  report(join(profiles.path, file));
  data.remove();
  if (process.env.KEEP_PROFILE) console.log(`\nProfile kept: ${join(profiles.path, file)}`);
  else profiles.remove();
}

void main();
