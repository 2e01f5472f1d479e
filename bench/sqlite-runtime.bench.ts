/**
 * What each of the embedded store's background mechanisms earns: the built
 * api with it (A) against the same build without it (B), on the workload it
 * was made for, in alternated pairs (A B B A …), per pair the ratio A/B of
 * the rate and each side's CPU per operation (docs/benchmarks.md, "SQLite
 * runtime: what each worker earns").
 *
 *   BENCH_SECONDS=6 PAIRS=4 npx ts-node --transpile-only -r tsconfig-paths/register \
 *     bench/sqlite-runtime.bench.ts <workload> '<env of A>' '<env of B>'
 *
 * Workloads: `appends` (timeline appends, 32 connections), `storm` (the
 * alert storm, its second storm), `lists` (GET /api/v1/incidents?limit=20 at
 * 32 connections over 300 incidents), `catch-up` (an api starting on a
 * ledger of CATCH_UP_EVENTS events: seconds until projected, and the longest
 * health check meanwhile). An env is `NAME=value,NAME=value` ('' for none).
 * API_MAIN names the built api (default dist/apps/api/main.js).
 */
import { spawn } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { NODE_FLAGS } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { storm } from './alert-storm.bench';
import { cpuMs, withCpu } from './support/cpu-time';
import { listeningUrl, load } from './support/load';
import { seedLedger, uniqueEvents } from './timeline.bench';

const AUTH = `Bearer ${token({ sub: 'bench', roles: ['timeline.writer', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const API_MAIN = process.env.API_MAIN ?? join(__dirname, '..', 'dist', 'apps', 'api', 'main.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const PAIRS = Number(process.env.PAIRS ?? 4);
const CATCH_UP_EVENTS = Number(process.env.CATCH_UP_EVENTS ?? 200_000);

/** One run's figures: a rate (higher is better) and the api's CPU per operation (µs). */
interface Run {
  rate: number;
  cpuUs: number;
  extra?: string;
}

const parseEnv = (text: string) => Object.fromEntries(text.split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]));

async function withApi<T>(env: Record<string, string>, dataDir: string, work: (url: string, pid: number) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, [...NODE_FLAGS, API_MAIN], {
    env: { ...process.env, NODE_ENV: 'production', APP_ENV: 'development', PORT: '0', NO_COLOR: '1', LOG_LEVEL: 'warn', DATA_DIR: dataDir, PROJECTION_WAIT_MS: '600000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    return await work(await listeningUrl(child), child.pid!);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH }, body: JSON.stringify(body) }).then((res) => res.json() as Promise<{ id: string }>);

const WORKLOADS: Record<string, (env: Record<string, string>) => Promise<Run>> = {
  appends: (env) => {
    const dir = tempDir('bench-runtime');
    return withApi(env, dir.path, async (url, pid) => {
      const { id } = await post(`${url}/api/v1/incidents`, { title: 'Bench', severity: 'SEV-3' });
      const headers = { 'content-type': 'application/cloudevents+json', authorization: AUTH };
      const result = await withCpu(pid, () => load({ url: `${url}/api/v1/timeline/events`, headers, requests: [uniqueEvents(`incident/${id}`)], duration: SECONDS }));
      return { rate: result.rps, cpuUs: result.cpuUs, extra: `p99 ${result.p99} ms, errors ${result.errors + result.non2xx}` };
    }).finally(() => dir.remove());
  },
  storm: (env) => {
    const dir = tempDir('bench-runtime');
    return withApi(env, dir.path, async (url, pid) => {
      await storm(url, 'storm', pid);
      const second = await storm(url, 'later', pid);
      return { rate: second.rate, cpuUs: second.cpu!.apiMain + second.cpu!.apiOthers, extra: `main ${second.cpu!.apiMain} µs, p99 ${second.p99} ms, errors ${second.errors.length}` };
    }).finally(() => dir.remove());
  },
  lists: (env) => {
    const dir = tempDir('bench-runtime');
    return withApi(env, dir.path, async (url, pid) => {
      for (let i = 0; i < 300; i++) await post(`${url}/api/v1/incidents`, { title: `Incident ${i}`, severity: ['SEV-1', 'SEV-2', 'SEV-3'][i % 3] });
      const result = await withCpu(pid, () => load({ url: `${url}/api/v1/incidents?limit=20`, headers: { authorization: AUTH }, duration: SECONDS }));
      return { rate: result.rps, cpuUs: result.cpuUs, extra: `p99 ${result.p99} ms` };
    }).finally(() => dir.remove());
  },
  'catch-up': async (env) => {
    const dir = tempDir('bench-runtime');
    cpSync(seeded!, join(dir.path, 'events.sqlite'));
    const started = Date.now();
    return withApi(env, dir.path, async (url, pid) => {
      const cpuBefore = cpuMs(`/proc/${pid}`);
      const last = `INC-${(999).toString(16).padStart(8, '0')}`;
      let longest = 0;
      for (;;) {
        const asked = Date.now();
        await fetch(`${url}/health`);
        longest = Math.max(longest, Date.now() - asked);
        const res = await fetch(`${url}/api/v1/incidents/${last}/timeline?limit=1000`, { headers: { authorization: AUTH } });
        if (res.ok && ((await res.json()) as { events: unknown[] }).events.length === CATCH_UP_EVENTS / 1000) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const seconds = (Date.now() - started) / 1000;
      return { rate: CATCH_UP_EVENTS / seconds, cpuUs: Math.round(((cpuMs(`/proc/${pid}`) - cpuBefore) * 1000) / CATCH_UP_EVENTS), extra: `${seconds.toFixed(1)} s, longest health check ${longest} ms` };
    }).finally(() => dir.remove());
  },
};

let seeded: string | undefined;

async function main() {
  const [workload, envA = '', envB = ''] = process.argv.slice(2);
  const run = WORKLOADS[workload];
  if (!run) throw new Error(`workload: one of ${Object.keys(WORKLOADS).join(', ')}`);
  const seedDir = workload === 'catch-up' ? tempDir('bench-runtime-seed') : undefined;
  if (seedDir) {
    await seedLedger(seedDir.path, CATCH_UP_EVENTS);
    seeded = join(seedDir.path, 'events.sqlite');
  }
  const ratios: number[] = [];
  const lines: string[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    // A B, then B A: neither side always runs first.
    const order = pair % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
    const got: Record<string, Run> = {};
    for (const side of order) got[side] = await run(parseEnv(side === 'A' ? envA : envB));
    ratios.push(got.A.rate / got.B.rate);
    const line = `pair ${pair + 1} (${order.join(' ')}): A ${Math.round(got.A.rate)}/s ${got.A.cpuUs} µs/op (${got.A.extra ?? ''}); B ${Math.round(got.B.rate)}/s ${got.B.cpuUs} µs/op (${got.B.extra ?? ''}); A/B ${ratios[pair].toFixed(3)}`;
    lines.push(line);
    console.log(line);
  }
  const mean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
  console.log(`${workload}: A='${envA}' B='${envB}': A/B per pair ${ratios.map((r) => r.toFixed(2)).join(', ')}; geometric mean ${mean.toFixed(3)}`);
  if (seedDir) rmSync(seedDir.path, { recursive: true, force: true });
}

void main();
