import type autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { PROJECTOR_MAIN, startServer } from '../test/support/server-process';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { withCpu } from './support/cpu-time';
import { formatRow, listeningUrl, load, type LoadResult, startTsServer, TABLE_HEAD, withBuiltServer } from './support/load';

export const AUTH = `Bearer ${token({ sub: 'bench' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;

/** A request generator: every request a new event (unique id and origin id) on one incident, or on the one `subject` names for the connection (its context). */
export const uniqueEvents = (subject?: string | ((context: { subject?: string }) => string)) => ({
  method: 'POST' as const,
  setupRequest: (request: autocannon.Request, context: object = {}) => ({
    ...request,
    body: JSON.stringify({
      specversion: '1.0',
      id: randomUUID(),
      source: 'im://bench',
      type: 'im.incident.note',
      time: new Date().toISOString(),
      ...(subject ? { subject: typeof subject === 'function' ? subject(context as { subject?: string }) : subject } : {}),
      'im.origin_id': randomUUID(),
      data: { content: 'Load test note', service: 'bench' },
    }),
  }),
});

/** The ceiling: bare node:http + better-sqlite3 with the same durability, on a fresh file. */
async function bareCeiling(seconds: number): Promise<LoadResult & { cpuUs: number; clientUs: number }> {
  const dir = tempDir('bench-bare');
  const bare = startTsServer(join(__dirname, 'bare-append.server.ts'), [dir.path]);
  try {
    const url = `${await listeningUrl(bare)}/`;
    return await withCpu(bare.pid!, () =>
      load({ url, headers: { 'content-type': 'application/cloudevents+json' }, requests: [uniqueEvents('incident/INC-00000001')], duration: seconds }),
    );
  } finally {
    bare.kill('SIGTERM');
    dir.remove();
  }
}

/** The ledger-to-read-model lag the api reports in /api/v1/validate (over its last 10,000 events). */
async function projectionLag(url: string): Promise<string> {
  const report = (await (await fetch(`${url}/api/v1/validate`)).json()) as { results: { check: string; message: string }[] };
  const message = report.results.find((r) => r.check === 'lag')?.message ?? '';
  return message.match(/p50 \d+ ms, p99 \d+ ms, max \d+ ms/)?.[0] ?? `not reported (${message})`;
}

/** The service: POST /api/v1/timeline/events on a fresh data directory. */
function serviceAppends(seconds: number): Promise<LoadResult & { lag: string; cpuUs: number; clientUs: number }> {
  return withBuiltServer('bench-timeline', {}, async (url, _dataDir, pid) => {
    const created = await fetch(`${url}/api/v1/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bench', severity: 'SEV-3' }),
    });
    const { id } = (await created.json()) as { id: string };
    const result = await withCpu(pid, () =>
      load({
        url: `${url}/api/v1/timeline/events`,
        headers: { 'content-type': 'application/cloudevents+json', authorization: AUTH },
        requests: [uniqueEvents(`incident/${id}`)],
        duration: seconds,
      }),
    );
    return { ...result, lag: await projectionLag(url) };
  });
}

const ROUNDS = 2;

/**
 * Appends through the service next to the bare ceiling, interleaved over two
 * rounds: this machine's fsync rate drifts, so one pair alone can mislead.
 */
export async function timelineAppends(seconds: number): Promise<string> {
  const rows: string[] = [];
  const ratios: string[] = [];
  const lags: string[] = [];
  const costs: string[] = [];
  const reachable: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const ceiling = await bareCeiling(seconds);
    const service = await serviceAppends(seconds);
    rows.push(formatRow(`round ${round}: bare node:http + better-sqlite3 insert (ceiling)`, ceiling));
    rows.push(formatRow(`round ${round}: POST /api/v1/timeline/events (service)`, service));
    ratios.push((service.rps / ceiling.rps).toFixed(2));
    lags.push(`round ${round}: ${service.lag}`);
    costs.push(`round ${round}: ceiling ${ceiling.cpuUs}, service ${service.cpuUs} (${(service.cpuUs / ceiling.cpuUs).toFixed(1)} ×)`);
    // With every core busy with nothing but the service and the load generator, at the CPU each spent per append in this round.
    const most = (cpus().length * 1e6) / (service.cpuUs + service.clientUs);
    reachable.push(`round ${round}: load generator ${service.clientUs} µs, so at most ${Math.round(most)} appends/s, ${(most / ceiling.rps).toFixed(2)} of the ceiling's rate`);
  }
  return [
    '## Timeline appends against the bare ceiling',
    '',
    `Unique events (new id and im.origin_id each), 32 connections, ${seconds} s each, ceiling and service interleaved over ${ROUNDS} rounds in the same invocation (\`bench/timeline.bench.ts\`). The ceiling is \`bench/bare-append.server.ts\`: node:http + better-sqlite3, WAL, synchronous=FULL, one commit per request, a unique index on (source, origin id). The service adds JWT verification, schema validation, the dedup lookups, the decider, the stream append (group-committed) and waiting for every projection before answering. The disk's fsync rate on this machine drifts between runs, which moves the ceiling by up to 2x; compare within a round.`,
    '',
    ...TABLE_HEAD,
    ...rows,
    '',
    `Service / ceiling per round: **${ratios.join(', ')}**.`,
    '',
    `Server CPU per append (µs, every thread of the process, user + system from /proc): ${costs.join('; ')}. The rate moves with the disk and other load; this cost much less.`,
    '',
    `What the service's CPU per append allows on this machine's ${cpus().length} cores, which it shares with the load generator (its CPU per append, from process.cpuUsage): ${reachable.join('; ')}.`,
    '',
    `Projection lag under this load, from the ledger stamping an event (before its commit and fsync) to every read model showing it, over the last 10,000 events of each service run as the api reports it in \`/api/v1/validate\`: ${lags.join('; ')}.`,
  ].join('\n');
}

const SEED_INCIDENTS = 1000;

/** Writes `total` events straight into a ledger: 1,000 incidents (unless told), events spread over them, group-committed. */
export async function seedLedger(dataDir: string, total: number, incidents = SEED_INCIDENTS): Promise<number> {
  const store = new SqliteEventStore(join(dataDir, 'events.sqlite'));
  const perIncident = total / incidents;
  const started = Date.now();
  const base = Date.UTC(2026, 0, 1);
  for (let i = 0; i < incidents; i++) {
    const id = `INC-${i.toString(16).padStart(8, '0')}`;
    const events = Array.from({ length: perIncident }, (_, n) => ({
      specversion: '1.0' as const,
      id: randomUUID(),
      source: 'im://seed',
      type: n === 0 ? 'im.incident.declare' : n % 10 === 0 ? 'im.paging.escalate' : 'im.incident.note',
      time: new Date(base + i * 1000 + n * 60_000).toISOString(),
      subject: `incident/${id}`,
      'im.actor': `responder-${n % 7}`,
      'im.correlation_key': `corr-${i % 100}`,
      data: n === 0 ? { title: `Seeded ${i}`, severity: 'SEV-3' } : { content: `Seeded note ${n}`, service: `svc-${i % 20}` },
    }));
    await store.append(`incident-${id}`, events, 'no_stream');
  }
  await store.close();
  return (Date.now() - started) / 1000;
}

/** A process's resident memory now and its high-water mark, in MiB. */
function memoryOf(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(status.match(new RegExp(`${field}:\\s+(\\d+) kB`))?.[1] ?? NaN);
  return { now: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

/** Runs the built rebuild CLI on a data directory; returns what it reports (events, seconds, events/s). */
export function rebuildReadModels(dataDir: string): string {
  const result = spawnSync(process.execPath, [PROJECTOR_MAIN, 'rebuild'], {
    env: { ...process.env, DATA_DIR: dataDir, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 600_000,
  });
  const report = result.stdout.match(/from (\d+) events in ([\d.]+) s \((\d+) events\/s\)/);
  if (result.status !== 0 || !report) throw new Error(`rebuild failed: ${result.stderr}${result.stdout}`);
  return `${Number(report[1]).toLocaleString('en')} events in ${report[2]} s, **${Number(report[3]).toLocaleString('en')} events/s**`;
}

/** Reads at one million stored events: the incident timeline page and the cross-incident query. */
export async function timelineReads(seconds: number, total = Number(process.env.BENCH_EVENTS ?? 1_000_000)): Promise<string> {
  const dir = tempDir('bench-1m');
  const seedSeconds = await seedLedger(dir.path, total);
  const catchUpStarted = Date.now();
  const server = await startServer({ DATA_DIR: dir.path, PROJECTION_WAIT_MS: '600000' }, 30_000);
  try {
    const incident = `INC-${(SEED_INCIDENTS / 2).toString(16).padStart(8, '0')}`;
    // The api projects the seeded log on start: wait until the last incident's timeline is all there.
    const last = `INC-${(SEED_INCIDENTS - 1).toString(16).padStart(8, '0')}`;
    for (;;) {
      const res = await fetch(`${server.url}/api/v1/incidents/${last}/timeline?limit=1000`, { headers: { authorization: AUTH } });
      if (res.ok && ((await res.json()) as { events: unknown[] }).events.length === total / SEED_INCIDENTS) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const catchUpSeconds = (Date.now() - catchUpStarted) / 1000;
    const rss = memoryOf(server.child.pid!);
    const read = (path: string, connections = 32) =>
      load({ url: `${server.url}${path}`, headers: { authorization: AUTH }, duration: seconds, connections });
    const page50 = await read(`/api/v1/incidents/${incident}/timeline?limit=50`);
    const page50At8 = await read(`/api/v1/incidents/${incident}/timeline?limit=50`, 8);
    const page50At1 = await read(`/api/v1/incidents/${incident}/timeline?limit=50`, 1);
    const page1000 = await read(`/api/v1/incidents/${incident}/timeline?limit=1000`);
    const page1000At8 = await read(`/api/v1/incidents/${incident}/timeline?limit=1000`, 8);
    const page1000At1 = await read(`/api/v1/incidents/${incident}/timeline?limit=1000`, 1);
    const filtered = await read(`/api/v1/incidents/${incident}/timeline?limit=50&type=im.paging.*&order=asc`);
    const query = await load({
      url: `${server.url}/api/v1/timeline/query`,
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ correlation_key: 'corr-42', limit: 50 }),
      duration: seconds,
    });
    const peak = memoryOf(server.child.pid!);
    server.child.kill('SIGTERM');
    await server.exited;
    const rebuild = rebuildReadModels(dir.path);
    return [
      `## Timeline reads at ${total.toLocaleString('en')} stored events`,
      '',
      `${total.toLocaleString('en')} events over ${SEED_INCIDENTS} incidents written straight into the ledger (${seedSeconds.toFixed(1)} s), then the built api started on it and projected the whole log into every read model while already serving (${catchUpSeconds.toFixed(1)} s until the last incident's timeline was complete, ${Math.round(total / catchUpSeconds).toLocaleString('en')} events/s through all projections). API memory: RSS ${rss.now} MiB after the catch-up, and at the end of the read workloads ${peak.now} MiB, highest over its life (VmHWM) ${peak.peak} MiB, reached with 32 limit-1000 pages at once (issue 21's ≤ 512 MiB is for the memory section's scenario, with the subscribers and webhooks). ${seconds} s each, 32 connections unless the row says otherwise (\`bench/timeline.bench.ts\`). On this 2-core machine the load generator takes one core, so at 32 connections most of the latency is queueing behind other requests; the 1- and 8-connection rows show the cost of a page itself.`,
      '',
      ...TABLE_HEAD,
      formatRow('incident timeline, limit 50', page50),
      formatRow('incident timeline, limit 50, 8 connections', page50At8),
      formatRow('incident timeline, limit 50, 1 connection', page50At1),
      formatRow('incident timeline, limit 1000', page1000),
      formatRow('incident timeline, limit 1000, 8 connections', page1000At8),
      formatRow('incident timeline, limit 1000, 1 connection', page1000At1),
      formatRow('incident timeline, limit 50, type=im.paging.*, asc', filtered),
      formatRow('POST /api/v1/timeline/query by correlation_key, limit 50', query),
      '',
      `Projection rebuild of the same ${total.toLocaleString('en')} events with the api stopped (\`npm run projections:rebuild\`, the built projector CLI, timed by itself; every read model emptied and replayed, secondary indexes built at the end): ${rebuild}.`,
    ].join('\n');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    dir.remove();
  }
}
