/**
 * `npx ts-node --transpile-only -r tsconfig-paths/register bench/graphql-interleaved.ts`:
 * the GraphQL bench's myIncidents query against several configurations of the
 * built api and the framework ceiling, all up at once and loaded in turn for
 * SECS seconds each, ROUNDS times (the order reversed every other round), so
 * that every configuration samples the same phases of a machine whose speed
 * drifts within seconds. Prints each one's rate, its ratio to the ceiling, and
 * its main thread's and whole process's CPU per request.
 *
 * VARIANTS="name:ENV=value;ENV2=value,other:" names the api configurations
 * (default one, `api`, as started by the GraphQL bench); QUERY replaces the
 * query the api variants are asked (`status`: the bench's incidentStatus); the
 * ceiling always answers its constant list, the measure of the framework.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { cpuMs } from './support/cpu-time';
import { listeningUrl, load, startTsServer } from './support/load';
import { GRAPHQL_READER, INCIDENT_STATUS, MY_INCIDENTS, seed, untilProjected } from './graphql.bench';

interface Target {
  name: string;
  url: string;
  process: ChildProcess;
  stop: () => Promise<void>;
  mainMs: number;
  allMs: number;
  requests: number;
  seconds: number;
  failed: number;
}

const asked = process.env.QUERY === 'status' ? INCIDENT_STATUS : (process.env.QUERY ?? MY_INCIDENTS);
const queryOf = (target: Target) => (target.name === 'ceiling' ? MY_INCIDENTS : asked);
const headers = { authorization: `Bearer ${token(GRAPHQL_READER, { expiresIn: '4h' })}`, 'content-type': 'application/json' };
const post = (url: string, body: string) => fetch(`${url}/api/v1/graphql`, { method: 'POST', headers, body }).then((r) => r.text());
const burst = (target: Target, seconds: number) =>
  load({ url: `${target.url}/api/v1/graphql`, method: 'POST', headers, body: JSON.stringify({ query: queryOf(target) }), duration: seconds });

function variants(): { name: string; env: Record<string, string> }[] {
  return (process.env.VARIANTS ?? 'api:').split(',').map((variant) => {
    const [name, settings = ''] = variant.split(':');
    return { name, env: Object.fromEntries(settings.split(';').filter(Boolean).map((setting) => [setting.slice(0, setting.indexOf('=')), setting.slice(setting.indexOf('=') + 1)])) };
  });
}

async function main(): Promise<void> {
  const ledger = tempDir('graphql-interleaved-seed');
  const targets: Target[] = [];
  try {
    await seed(ledger.path);
    for (const { name, env } of variants()) {
      const dir = tempDir('graphql-interleaved');
      copyFileSync(join(ledger.path, 'events.sqlite'), join(dir.path, 'events.sqlite'));
      const server = await startServer({ DATA_DIR: dir.path, PROJECTION_WAIT_MS: '600000', ...env }, 60_000);
      const stop = async () => {
        server.child.kill('SIGTERM');
        await server.exited;
        dir.remove();
      };
      targets.push({ name, url: server.url, process: server.child, stop, mainMs: 0, allMs: 0, requests: 0, seconds: 0, failed: 0 });
      await untilProjected(server.url, headers);
    }
    const ceiling = startTsServer(join(__dirname, 'graphql-ceiling.server.ts'));
    const stopCeiling = () => new Promise<void>((resolve) => (ceiling.exitCode !== null ? resolve() : (ceiling.once('exit', () => resolve()), ceiling.kill('SIGTERM'))));
    targets.push({ name: 'ceiling', url: await listeningUrl(ceiling), process: ceiling, stop: stopCeiling, mainMs: 0, allMs: 0, requests: 0, seconds: 0, failed: 0 });

    const seconds = Number(process.env.SECS ?? 3);
    for (const target of targets) {
      // GraphQL answers its errors with 200: a configuration that fails would otherwise be measured as fast.
      const answer = await post(target.url, JSON.stringify({ query: queryOf(target) }));
      if (answer.includes('"errors"')) throw new Error(`${target.name} answers the query with errors: ${answer.slice(0, 300)}`);
      await burst(target, 3);
    }
    for (let round = 0; round < Number(process.env.ROUNDS ?? 8); round++) {
      for (const target of round % 2 ? [...targets].reverse() : targets) {
        const pid = target.process.pid!;
        const [main, all] = [cpuMs(`/proc/${pid}/task/${pid}`), cpuMs(`/proc/${pid}`)];
        const result = await burst(target, seconds);
        target.mainMs += cpuMs(`/proc/${pid}/task/${pid}`) - main;
        target.allMs += cpuMs(`/proc/${pid}`) - all;
        target.requests += result.requests;
        target.seconds += result.seconds;
        target.failed += result.errors + result.non2xx;
      }
    }
    const rate = (t: Target) => t.requests / t.seconds;
    const ceilingRate = rate(targets[targets.length - 1]);
    const perRequest = (ms: number, t: Target) => Math.round((ms * 1000) / t.requests);
    console.log('| server | req/s | / ceiling | main thread µs/request | process µs/request | failed |\n|---|---|---|---|---|---|');
    for (const t of targets) {
      console.log(`| ${t.name} | ${Math.round(rate(t))} | ${(rate(t) / ceilingRate).toFixed(2)} | ${perRequest(t.mainMs, t)} | ${perRequest(t.allMs, t)} | ${t.failed} |`);
    }
  } finally {
    for (const target of targets) await target.stop();
    ledger.remove();
  }
}

void main();
