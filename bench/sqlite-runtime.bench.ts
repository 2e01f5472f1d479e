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
 * 32 connections over 300 incidents), `catch-up` (the api starting on a
 * ledger of REBUILD_EVENTS events already checked, without read models: the
 * slowest /health answer while they catch up in bulk, and when it listened), `pages` (GET …/timeline?limit=PAGE_ROWS, 50 by default, at CONNECTIONS,
 * 32, on an incident of PAGE_EVENTS events, 100), `rebuild` (rebuildProjections in this
 * process over a ledger of REBUILD_EVENTS events, as `projections:rebuild`
 * does; WORKERS=1 opens the read store with its workers: events/s and the
 * longest the event loop was held). An env is `NAME=value,NAME=value` ('' for
 * none).
 * API_MAIN names the built api (default dist/apps/api/main.js).
 *
 * The switches the measured sides differed by (SQLITE_RUNTIME_OFF=<mechanism>,
 * SQLITE_RUNTIME_PAGE_ROWS, SQLITE_RUNTIME_CHAIN_BELOW) were read by the code
 * only at commit 26a959c: to reproduce a row of the table, check out 26a959c,
 * build it, and run this file from there. On later code they set nothing, and
 * every workload runs the same build on both sides (an A/A run, which the
 * table gives as the spread), except `rebuild WORKERS=1 ''`, which still
 * compares the index builds' worker with their absence.
 */
import type autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { NODE_FLAGS } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { storm } from './alert-storm.bench';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { ALL_PROJECTIONS, rebuildProjections } from '@im/read-models';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { cpuMs, withCpu } from './support/cpu-time';
import { listeningUrl, load } from './support/load';
import { seedLedger, uniqueEvents } from './timeline.bench';

const AUTH = `Bearer ${token({ sub: 'bench', roles: ['timeline.writer', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const API_MAIN = process.env.API_MAIN ?? join(__dirname, '..', 'dist', 'apps', 'api', 'main.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const PAIRS = Number(process.env.PAIRS ?? 4);
const REBUILD_EVENTS = Number(process.env.REBUILD_EVENTS ?? 300_000);
/** For `pages`: the page's rows, the connections asking, and the incident's events. */
const PAGE_ROWS = Number(process.env.PAGE_ROWS ?? 50);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const PAGE_EVENTS = Number(process.env.PAGE_EVENTS ?? 100);

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

/** A load's figures, with the CPU the api's main thread spent per request (µs). */
async function withMainCpu<T extends { requests: number }>(pid: number, run: () => Promise<T>) {
  const mainBefore = cpuMs(`/proc/${pid}/task/${pid}`);
  const result = await withCpu(pid, run);
  return { result, mainUs: Math.round(((cpuMs(`/proc/${pid}/task/${pid}`) - mainBefore) * 1000) / result.requests) };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: AUTH }, body: JSON.stringify(body) }).then((res) => res.json() as Promise<{ id: string }>);

const WORKLOADS: Record<string, (env: Record<string, string>) => Promise<Run>> = {
  appends: (env) => {
    const dir = tempDir('bench-runtime');
    return withApi(env, dir.path, async (url, pid) => {
      const { id } = await post(`${url}/api/v1/incidents`, { title: 'Bench', severity: 'SEV-3' });
      const headers = { 'content-type': 'application/cloudevents+json', authorization: AUTH };
      const { result, mainUs } = await withMainCpu(pid, () => load({ url: `${url}/api/v1/timeline/events`, headers, requests: [uniqueEvents(`incident/${id}`)], duration: SECONDS }));
      return { rate: result.rps, cpuUs: result.cpuUs, extra: `main ${mainUs} µs, p99 ${result.p99} ms, errors ${result.errors + result.non2xx}` };
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
      const { result, mainUs } = await withMainCpu(pid, () => load({ url: `${url}/api/v1/incidents?limit=20`, headers: { authorization: AUTH }, duration: SECONDS }));
      return { rate: result.rps, cpuUs: result.cpuUs, extra: `main ${mainUs} µs, p99 ${result.p99} ms` };
    }).finally(() => dir.remove());
  },
  pages: (env) => {
    const dir = tempDir('bench-runtime');
    return withApi(env, dir.path, async (url, pid) => {
      const { id } = await post(`${url}/api/v1/incidents`, { title: 'Bench', severity: 'SEV-3' });
      const headers = { 'content-type': 'application/cloudevents+json', authorization: AUTH };
      for (let i = 0; i < PAGE_EVENTS; i++) await fetch(`${url}/api/v1/timeline/events`, { method: 'POST', headers, body: uniqueEvents(`incident/${id}`).setupRequest({} as autocannon.Request).body });
      const { result, mainUs } = await withMainCpu(pid, () => load({ url: `${url}/api/v1/incidents/${id}/timeline?limit=${PAGE_ROWS}`, headers: { authorization: AUTH }, duration: SECONDS, connections: CONNECTIONS }));
      return { rate: result.rps, cpuUs: result.cpuUs, extra: `main ${mainUs} µs, p99 ${result.p99} ms` };
    }).finally(() => dir.remove());
  },
  'catch-up': async (env) => {
    const dir = tempDir('bench-runtime');
    cpSync(seededDir!, dir.path, { recursive: true });
    const started = Date.now();
    return withApi(env, dir.path, async (url, pid) => {
      // An api whose event loop is held while it starts listens late: its slowest /health is measured only after.
      const listenedAfter = (Date.now() - started) / 1000;
      // The slowest /health answer while the read models catch up in bulk: how long the event loop was held.
      let longest = 0;
      let probing = true;
      const prober = (async () => {
        while (probing) {
          const asked = performance.now();
          await fetch(`${url}/health`);
          longest = Math.max(longest, performance.now() - asked);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const cpuBefore = cpuMs(`/proc/${pid}`);
      const last = `INC-${(999).toString(16).padStart(8, '0')}`;
      for (;;) {
        const res = await fetch(`${url}/api/v1/incidents/${last}/timeline?limit=1000`, { headers: { authorization: AUTH } });
        if (res.ok && ((await res.json()) as { events: unknown[] }).events.length === REBUILD_EVENTS / 1000) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      probing = false;
      await prober;
      const seconds = (Date.now() - started) / 1000;
      return { rate: REBUILD_EVENTS / seconds, cpuUs: Math.round(((cpuMs(`/proc/${pid}`) - cpuBefore) * 1000) / REBUILD_EVENTS), extra: `${seconds.toFixed(1)} s, listening after ${listenedAfter.toFixed(1)} s, slowest /health ${Math.round(longest)} ms` };
    }).finally(() => dir.remove());
  },
  rebuild: async (env) => {
    const dir = tempDir('bench-runtime');
    cpSync(seeded!, join(dir.path, 'events.sqlite'));
    const events = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    const read = new SqliteReadStore(join(dir.path, 'read-models.sqlite'), undefined, { workers: env.WORKERS === '1' });
    // The longest the event loop was held: what a served api (health checks, writes, streams) would have waited.
    let last = performance.now();
    let longest = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const cpuBefore = cpuMs('/proc/self');
    const started = performance.now();
    try {
      const count = await rebuildProjections(events, read, ALL_PROJECTIONS);
      const seconds = (performance.now() - started) / 1000;
      return { rate: count / seconds, cpuUs: Math.round(((cpuMs('/proc/self') - cpuBefore) * 1000) / count), extra: `${seconds.toFixed(1)} s, event loop held at most ${Math.round(longest)} ms` };
    } finally {
      clearInterval(ticker);
      await read.close();
      await events.close();
      dir.remove();
    }
  },
};

let seeded: string | undefined;
/** For `catch-up`: a data directory whose ledger the api has checked once (so its start does not check it again), without read models. */
let seededDir: string | undefined;

async function main() {
  const [workload, envA = '', envB = ''] = process.argv.slice(2);
  const run = WORKLOADS[workload];
  if (!run) throw new Error(`workload: one of ${Object.keys(WORKLOADS).join(', ')}`);
  const seedDir = workload === 'rebuild' || workload === 'catch-up' ? tempDir('bench-runtime-seed') : undefined;
  if (seedDir) await seedLedger(seedDir.path, REBUILD_EVENTS);
  if (workload === 'rebuild') {
    seeded = join(seedDir!.path, 'events.sqlite');
    // In this process: a first run compiles the code both sides run, and is not counted.
    await run(parseEnv(envB));
  }
  if (workload === 'catch-up') {
    // One start checks the ledger's chains and records it; the read models it built are removed.
    await withApi({}, seedDir!.path, async (url) => {
      while ((await fetch(`${url}/api/v1/validate`).then((res) => res.text())).includes('catching up')) await new Promise((r) => setTimeout(r, 500));
    });
    for (const name of readdirSync(seedDir!.path)) if (name.startsWith('read-models.sqlite')) rmSync(join(seedDir!.path, name));
    seededDir = seedDir!.path;
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
