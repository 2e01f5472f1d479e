/**
 * Two builds of the api, alternated on this machine: appends, then reads of
 * what was appended (50-row pages at 8 and 32 connections, 1,000-row pages,
 * incident lists), on a fresh data directory each run. For a redesign that
 * must not make the service slower: `node -r tsx/cjs bench/builds-compared.ts
 * <checkout A> <checkout B> [pairs]`, each checkout built (`dist/`) with
 * node_modules. Order alternates (A B, B A, …) so drift over the run weighs
 * on both sides alike; it prints each pair's ratio B/A and their geometric mean.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { NODE_FLAGS, PRODUCTION_NODE_ENV } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { withCpu } from './support/cpu-time';
import { listeningUrl, load } from './support/load';
import { uniqueEvents } from './timeline.bench';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;

interface Figures {
  appendRps: number;
  appendCpuUs: number;
  appendMainUs: number;
  appendP99: number;
  readRps: number;
  readCpuUs: number;
  readMainUs: number;
  read32Rps: number;
  read1000Rps: number;
  listRps: number;
}

async function measure(checkout: string): Promise<Figures> {
  const dir = tempDir('bench-builds');
  const child = spawn(process.execPath, [...NODE_FLAGS, join(checkout, 'dist', 'apps', 'api', 'main.js')], {
    env: { ...process.env, ...PRODUCTION_NODE_ENV, APP_ENV: 'development', PORT: '0', NO_COLOR: '1', DATA_DIR: dir.path },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await listeningUrl(child);
    const created = await fetch(`${url}/api/v1/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: AUTH },
      body: JSON.stringify({ title: 'Bench', severity: 'SEV-3' }),
    });
    const { id } = (await created.json()) as { id: string };
    const pid = child.pid!;
    const headers = { 'content-type': 'application/cloudevents+json', authorization: AUTH };
    const appends = await withCpu(pid, () => load({ url: `${url}/api/v1/timeline/events`, headers, requests: [uniqueEvents(`incident/${id}`)], duration: SECONDS }));
    const reads = await withCpu(pid, () => load({ url: `${url}/api/v1/incidents/${id}/timeline?limit=50`, headers: { authorization: AUTH }, connections: 8, duration: SECONDS }));
    const timeline = (limit: number, connections: number) =>
      load({ url: `${url}/api/v1/incidents/${id}/timeline?limit=${limit}`, headers: { authorization: AUTH }, connections, duration: SECONDS / 2 });
    const reads32 = await timeline(50, 32);
    const reads1000 = await timeline(1000, 8);
    const lists = await load({ url: `${url}/api/v1/incidents?limit=50`, headers: { authorization: AUTH }, connections: 8, duration: SECONDS / 2 });
    if ([appends, reads, reads32, reads1000, lists].some((run) => run.non2xx + run.errors > 0)) throw new Error(`${checkout}: requests failed`);
    return {
      appendRps: appends.rps,
      appendCpuUs: appends.cpuUs,
      appendMainUs: appends.mainUs,
      appendP99: appends.p99,
      readRps: reads.rps,
      readCpuUs: reads.cpuUs,
      readMainUs: reads.mainUs,
      read32Rps: reads32.rps,
      read1000Rps: reads1000.rps,
      listRps: lists.rps,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    dir.remove();
  }
}

const geomean = (xs: number[]) => Math.exp(xs.reduce((sum, x) => sum + Math.log(x), 0) / xs.length);

async function main(): Promise<void> {
  const [a, b, pairsArg] = process.argv.slice(2);
  if (!a || !b) throw new Error('usage: builds-compared.ts <checkout A> <checkout B> [pairs]');
  const pairs = Number(pairsArg ?? 4);
  const keys: (keyof Figures)[] = ['appendRps', 'appendCpuUs', 'appendMainUs', 'appendP99', 'readRps', 'readCpuUs', 'readMainUs', 'read32Rps', 'read1000Rps', 'listRps'];
  const ratios = new Map(keys.map((key) => [key, [] as number[]]));
  for (let pair = 0; pair < pairs; pair++) {
    const aFirst = pair % 2 === 0;
    const first = await measure(resolve(aFirst ? a : b));
    const second = await measure(resolve(aFirst ? b : a));
    const [fa, fb] = aFirst ? [first, second] : [second, first];
    console.log(`pair ${pair + 1} (${aFirst ? 'A first' : 'B first'}): A ${JSON.stringify(fa)} B ${JSON.stringify(fb)}`);
    for (const key of keys) ratios.get(key)!.push(fb[key] / fa[key]);
  }
  console.log('B/A, geometric mean over pairs (per-pair ratios):');
  for (const key of keys) {
    const rs = ratios.get(key)!;
    console.log(`  ${key}: ${geomean(rs).toFixed(3)} (${rs.map((r) => r.toFixed(2)).join(', ')})`);
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
