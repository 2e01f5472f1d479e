/**
 * The response metrics (issue 51; docs/api.md, "Insights"), in three parts:
 *
 * - `port`: a year of 100,000 incidents (METRICS_INCIDENTS) read whole with
 *   IncidentMetricsQueries.changedSince into an IncidentFactsIndex, as an api's
 *   copy starts, on SQLite (on the store's connection, and in its reads worker
 *   as a serving api opens it) and PostgreSQL; then a window of the copy and
 *   metricsGroups, in this process: ms per call.
 * - `route`: GET /api/v1/analytics/incidents at 8 connections on the built api
 *   over as many incidents folded from a ledger, against its ceiling,
 *   bench/metrics-ceiling.server.ts (node:http answering metricsGroups from a
 *   copy of the api's own read-model file), in the same run; left
 *   out, and said so, while the api answers the route 404.
 * - `catch-up`: rebuildProjections over a ledger of CATCH_UP_INCIDENTS
 *   incidents as responders write them (declared or opened by an alert, a
 *   service, pages, alerts, roles, notes, acknowledged, escalated, mitigated,
 *   resolved or canceled…) with ALL_PROJECTIONS and without incident_metrics,
 *   alternated (A B, B A, …) PAIRS times, into SQLite and into PostgreSQL.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/metrics.bench.ts [port] [route] [catch-up]
 *
 * or `npm run bench -- metrics` (all three; `route` needs `npm run build`).
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CloudEvent } from '@im/cloudevents';
import type { EventStore } from '@im/event-store';
import { SqliteEventStore } from '@im/event-store/sqlite';
import { type IncidentFacts, METRICS_GROUPINGS, metricsGroups, SEVERITIES } from '@im/incidents';
import { ALL_PROJECTIONS, IncidentFactsIndex, incidentMetricsProjection, type Projection, type ReadStore, rebuildProjections } from '@im/read-models';
import { PostgresReadStore } from '@im/read-models/postgres';
import { SqliteReadStore } from '@im/read-models/sqlite';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { temporaryDatabase } from '../test/support/postgres-database';
import { tempDir } from '../test/support/temp-dir';
import { token } from '../test/support/tokens';
import { cpuMs, withCpu } from './support/cpu-time';
import { formatRow, listeningUrl, load, percentile, startTsServer, TABLE_HEAD, withBuiltServer } from './support/load';

const INCIDENTS = Number(process.env.METRICS_INCIDENTS ?? 100_000);
const CATCH_UP_INCIDENTS = Number(process.env.CATCH_UP_INCIDENTS ?? 20_000);
const PAIRS = Number(process.env.PAIRS ?? 4);
const CALLS = Number(process.env.METRICS_CALLS ?? 20);
const CONNECTIONS = 8;
const DAY_MS = 86_400_000;

/** A reader cleared for `internal`: the `restricted` twentieth of the incidents is left out, as a reader of the route would see them. */
const READER = { sub: 'bench', roles: ['timeline.reader'], clearance: 'internal' };
const VISIBLE = ['public', 'internal'];

/** A small deterministic generator: the same incidents every run. */
function drawing(seed: number) {
  let state = seed;
  return () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

/** Facts of `count` incidents declared over the year 2026, as the fold would have written them. */
function yearOfFacts(count: number): IncidentFacts[] {
  const draw = drawing(51);
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => {
    const declared = start + Math.floor((i * 365 * DAY_MS) / count);
    const visibility = draw();
    const outcome = draw();
    return {
      id: `INC-${i.toString(16).padStart(8, '0')}`,
      declaredAt: new Date(declared).toISOString(),
      severity: SEVERITIES[i % 4],
      serviceId: draw() < 0.1 ? null : `svc-${i % 50}`,
      visibility: visibility < 0.8 ? null : visibility < 0.95 ? 'internal' : 'restricted',
      outcome: outcome < 0.04 ? 'canceled' : outcome < 0.07 ? 'duplicate' : 'counted',
      acknowledgedAt: draw() < 0.9 ? new Date(declared + 5_000 + Math.floor(draw() * 1_800_000)).toISOString() : null,
      resolvedAt: draw() < 0.8 ? new Date(declared + 600_000 + Math.floor(draw() * 3 * DAY_MS)).toISOString() : null,
      escalated: draw() < 0.2,
      alerts: Math.floor(draw() * 5),
    };
  });
}

const serviceName = (id: string) => `Service ${id}`;

const figures = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)}`;
};

/** ms to read the whole read model into a copy, as an api's first request does (CHANGES_PER_READ at once), over CALLS / 4 reads after one unrecorded. */
async function loadCopy(store: ReadStore): Promise<{ copy: IncidentFactsIndex; ms: string }> {
  const times: number[] = [];
  let copy = new IncidentFactsIndex();
  for (let call = 0; call <= Math.max(1, CALLS / 4); call++) {
    const started = performance.now();
    copy = new IncidentFactsIndex();
    await copy.catchUp(store.metrics, 10_000);
    if (call > 0) times.push(performance.now() - started);
  }
  return { copy, ms: figures(times) };
}

/** ms per call of a window of the copy, and of metricsGroups over it by each grouping, over CALLS calls after one unrecorded. */
function perCall(copy: IncidentFactsIndex, [fromMs, toMs]: readonly [number, number]): string {
  const read: number[] = [];
  const grouped = new Map<string, number[]>(METRICS_GROUPINGS.map((groupBy) => [groupBy, []]));
  let found = 0;
  for (let call = 0; call <= CALLS; call++) {
    const asked = performance.now();
    const incidents = copy.declaredIn(fromMs, toMs, VISIBLE);
    const readMs = performance.now() - asked;
    found = incidents.length;
    if (call > 0) read.push(readMs);
    for (const groupBy of METRICS_GROUPINGS) {
      const started = performance.now();
      metricsGroups(incidents, groupBy, serviceName);
      if (call > 0) grouped.get(groupBy)!.push(performance.now() - started);
    }
  }
  const both = read.map((ms, i) => ms + grouped.get('week')![i]);
  return `${found.toLocaleString('en')} | ${figures(read)} | ${METRICS_GROUPINGS.map((groupBy) => figures(grouped.get(groupBy)!)).join(' | ')} | **${figures(both)}**`;
}

/** Writes the facts straight into a store's read model, as its fold commits them. */
async function saveFacts(store: ReadStore, facts: IncidentFacts[]): Promise<void> {
  for (let i = 0; i < facts.length; i += 2000) {
    const writes = facts.slice(i, i + 2000).map((doc, j) => ({ key: doc.id, doc, position: BigInt(i + j + 1) }));
    await store.commit(incidentMetricsProjection.name, writes, BigInt(i + writes.length));
  }
}

async function port(): Promise<string> {
  const facts = yearOfFacts(INCIDENTS);
  const windows = [
    ['the year', [Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1)]],
    ['30 days', [Date.UTC(2026, 5, 1), Date.UTC(2026, 6, 1)]],
  ] as const;
  const loads: string[] = [];
  const measure = async (name: string, store: ReadStore) => {
    const loaded = await loadCopy(store);
    loads.push(`| ${name} | ${loaded.copy.size.toLocaleString('en')} | ${loaded.ms} |`);
  };
  const dir = tempDir('bench-metrics');
  try {
    const file = join(dir.path, 'read-models.sqlite');
    const seeding = new SqliteReadStore(file);
    await saveFacts(seeding, facts);
    await seeding.close();
    for (const [name, workers] of [['SQLite, on the store connection', false], ['SQLite, in its reads worker (as the api opens it)', true]] as const) {
      const store = new SqliteReadStore(file, undefined, { workers });
      try {
        await measure(name, store);
      } finally {
        await store.close();
      }
    }
  } finally {
    dir.remove();
  }
  const database = await temporaryDatabase('bench_metrics');
  try {
    const store = await PostgresReadStore.connect(database.url);
    try {
      await saveFacts(store, facts);
      await measure('PostgreSQL 15 (a pool of 10)', store);
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
  }
  const memoryBefore = process.memoryUsage().heapUsed;
  const held = new IncidentFactsIndex();
  held.apply({ changes: facts.map((doc, i) => ({ facts: doc, position: BigInt(i + 1) })), readTo: BigInt(facts.length) });
  const heapMb = (process.memoryUsage().heapUsed - memoryBefore) / 2 ** 20;
  const rows = windows.map(([window, range]) => `| ${window} | ${perCall(held, range)} |`);
  return [
    `### The port and the copy: ${INCIDENTS.toLocaleString('en')} incidents`,
    '',
    `${INCIDENTS.toLocaleString('en')} incidents declared over 2026 written into the read model (50 services and none, 5 % restricted, 7 % canceled or duplicate, 90 % acknowledged, 80 % resolved) (\`bench/metrics.bench.ts port\`). First the whole read model read into a copy (IncidentFactsIndex) with changedSince, 10,000 changes a read, as an api's first request after its start does, ${Math.max(1, CALLS / 4)} times after one unrecorded; ms, p50 / p99:`,
    '',
    '| store | incidents | the whole copy read |',
    '|---|---|---|',
    ...loads,
    '',
    `The copy held about ${heapMb.toFixed(0)} MB of heap. Then the year and 30 days of it asked ${CALLS} times each by a reader cleared for \`internal\`, one call at a time in this process after one unrecorded; ms per call, p50 / p99:`,
    '',
    `| window | incidents answered | the window of the copy | ${METRICS_GROUPINGS.map((groupBy) => `metricsGroups by ${groupBy}`).join(' | ')} | both, by week |`,
    `|---|---|---|${METRICS_GROUPINGS.map(() => '---|').join('')}---|`,
    ...rows,
  ].join('\n');
}

/** An incident's stream as responders and the service write it; `full` adds what a busy incident carries besides the facts. */
function incidentStream(id: string, i: number, draw: () => number, full: boolean): Omit<CloudEvent, 'id'>[] {
  const at = Date.UTC(2026, 0, 1) + i * 60_000;
  const events: Omit<CloudEvent, 'id'>[] = [];
  const add = (type: string, minutes: number, extra: Partial<CloudEvent> = {}) =>
    events.push({ specversion: '1.0', source: 'im://bench', type, subject: `incident/${id}`, time: new Date(at + minutes * 60_000).toISOString(), 'im.actor': `responder-${i % 7}`, ...extra });
  const fingerprints = Array.from({ length: full ? Math.floor(draw() * 4) : 0 }, (_, n) => `fp-${i}-${n}`);
  const visibility = draw();
  const opening = visibility < 0.8 ? {} : { 'im.visibility': visibility < 0.95 ? 'internal' : 'restricted' };
  if (fingerprints.length && draw() < 0.5) add('im.alert.trigger', 0, { 'im.fingerprint': fingerprints.shift(), data: { title: `Alert ${i}`, severity: 'SEV-2' }, ...opening });
  else add('im.incident.declare', 0, { data: { title: `Incident ${i}`, severity: SEVERITIES[i % 4] }, ...opening });
  if (draw() < 0.9) add('im.incident.service_assigned', 0, { 'im.actor': 'system:oncall', data: { service_id: `svc-${i % 50}`, escalation_policy_id: full ? `pol-${i % 50}` : null } });
  if (full) {
    add('im.paging.page', 0, { 'im.actor': 'system:escalation', data: { step: 1, round: 1, paged: [{ user: `responder-${i % 7}`, via: 'user' }], unstaffed: [] } });
    for (const fingerprint of fingerprints) add('im.alert.trigger', 1, { 'im.fingerprint': fingerprint, data: { title: `Alert ${i}` } });
    add('im.incident.role_assigned', 2, { data: { role: 'IC', user_id: `responder-${i % 7}` } });
  }
  const outcome = draw();
  if (outcome < 0.04) add('im.incident.cancel', 3, { data: {} });
  else if (outcome < 0.07) add('im.incident.duplicate', 3, { data: { of: 'INC-00000000' } });
  else {
    const acknowledged = draw() < 0.9;
    if (acknowledged) add('im.incident.ack', 4, { data: {} });
    if (full) {
      for (let note = 0; note < 5 + Math.floor(draw() * 6); note++) add('im.incident.note', 5 + note, { data: { content: `Note ${note}: what we see, what we try next.` } });
      if (draw() < 0.2) add('im.paging.escalate', 6, { 'im.actor': 'system:escalation', data: { from_step: 1, to_step: 2, reason: 'timeout' } });
      if (draw() < 0.1) add('im.incident.severity', 7, { data: { severity: 'SEV-1' } });
      if (acknowledged && draw() < 0.6) add('im.incident.mitigate', 20, { data: {} });
    }
    if (draw() < 0.8) {
      add('im.incident.resolve', 30, { data: {} });
      for (const fingerprint of fingerprints) add('im.alert.resolve', 31, { 'im.fingerprint': fingerprint, data: {} });
      if (full && draw() < 0.5) add('im.incident.close', 60, { data: {} });
    }
  }
  return events;
}

/** Writes `incidents` incident streams straight into the ledger at `file`; answers how many events. */
async function seedIncidents(file: string, incidents: number, full: boolean): Promise<number> {
  const store = new SqliteEventStore(file);
  const draw = drawing(7);
  let count = 0;
  try {
    for (let i = 0; i < incidents; i++) {
      const id = `INC-${i.toString(16).padStart(8, '0')}`;
      const events = incidentStream(id, i, draw, full).map((event) => ({ ...event, id: randomUUID() }));
      await store.append(`incident-${id}`, events, 'no_stream');
      count += events.length;
    }
  } finally {
    await store.close();
  }
  return count;
}

/** One rebuild of every read model (or all but incident_metrics) from the ledger: seconds and CPU µs per event. */
async function rebuildOnce(events: EventStore, open: () => Promise<ReadStore>, projections: Projection<unknown>[]) {
  const read = await open();
  const cpuBefore = cpuMs('/proc/self');
  const started = performance.now();
  try {
    const count = await rebuildProjections(events, read, projections);
    return { seconds: (performance.now() - started) / 1000, cpuUs: ((cpuMs('/proc/self') - cpuBefore) * 1000) / count };
  } finally {
    await read.close();
  }
}

async function catchUp(): Promise<string> {
  const dir = tempDir('bench-metrics-catch-up');
  const without = ALL_PROJECTIONS.filter((projection) => projection !== incidentMetricsProjection);
  const lines: string[] = [];
  try {
    const ledger = join(dir.path, 'events.sqlite');
    const count = await seedIncidents(ledger, CATCH_UP_INCIDENTS, true);
    const events = new SqliteEventStore(ledger);
    const database = await temporaryDatabase('bench_metrics_catch_up');
    const stores: [string, () => Promise<ReadStore>][] = [
      [
        'SQLite',
        async () => {
          for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir.path, `read-models.sqlite${suffix}`), { force: true });
          return new SqliteReadStore(join(dir.path, 'read-models.sqlite'));
        },
      ],
      ['PostgreSQL', () => PostgresReadStore.connect(database.url)],
    ];
    try {
      for (const [name, open] of stores) {
        // A first run compiles the code every side runs, and is not counted.
        await rebuildOnce(events, open, without);
        const sides = { A: ALL_PROJECTIONS, B: without, M: [incidentMetricsProjection], L: [] };
        const got = Object.fromEntries(Object.keys(sides).map((side) => [side, [] as number[]])) as Record<keyof typeof sides, number[]>;
        const ratios: number[] = [];
        for (let pair = 0; pair < PAIRS; pair++) {
          // A B M L, then L M B A: no side always runs first.
          const keys = Object.keys(sides) as (keyof typeof sides)[];
          const order = pair % 2 === 0 ? keys : keys.reverse();
          for (const side of order) got[side].push((await rebuildOnce(events, open, sides[side])).seconds);
          ratios.push(got.A[pair] / got.B[pair]);
          console.log(`catch-up ${name} pair ${pair + 1}: ${order.map((side) => `${side} ${got[side][pair].toFixed(1)} s`).join(', ')}`);
        }
        const mean = Math.exp(ratios.reduce((sum, ratio) => sum + Math.log(ratio), 0) / ratios.length);
        const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
        const seconds = (side: keyof typeof sides) => `${got[side].map((value) => value.toFixed(1)).join(', ')}`;
        const share = (median(got.M) - median(got.L)) / median(got.B);
        lines.push(`| ${name} | ${seconds('A')} | ${seconds('B')} | ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}: **${mean.toFixed(3)}** | ${seconds('M')} | ${seconds('L')} | **${share.toFixed(3)}** |`);
      }
    } finally {
      await events.close();
      await database.drop();
    }
    return [
      '### Catch-up with and without incident_metrics',
      '',
      `A ledger of ${CATCH_UP_INCIDENTS.toLocaleString('en')} incidents as responders write them, ${count.toLocaleString('en')} events (most declared, some opened by an alert; a service and a page, 0-3 alerts, an IC, 5-10 notes, an acknowledgement, some escalated, re-rated and mitigated, resolved and closed, or canceled or marked duplicate), every read model emptied and folded again from it with \`rebuildProjections\` (what \`npm run projections:rebuild\` and a bulk catch-up run), A with ALL_PROJECTIONS and B without incident_metrics; beside them M, incident_metrics alone, and L, no read model (reading the log and committing checkpoints), so that (M − L) / B, medians, is incident_metrics' own work against the others', which other load on the machine moves less than A/B; ${PAIRS} rounds (A B M L, then L M B A) after one unrecorded run (\`bench/metrics.bench.ts catch-up\`). Target: A/B ≤ 1.10.`,
      '',
      '| read store | A: all (s) | B: without incident_metrics (s) | A/B per round: geometric mean | M: incident_metrics alone (s) | L: none (s) | (M − L) / B |',
      '|---|---|---|---|---|---|---|',
      ...lines,
    ].join('\n');
  } finally {
    dir.remove();
  }
}

async function route(seconds: number): Promise<string> {
  const auth = { authorization: `Bearer ${token(READER, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}` };
  const to = new Date(Date.now() + DAY_MS).toISOString();
  const from = new Date(Date.parse(to) - 366 * DAY_MS).toISOString();
  const path = `/api/v1/analytics/incidents?from=${from}&to=${to}&group_by=week`;
  let events = 0;
  return withBuiltServer(
    'bench-metrics-route',
    {},
    async (url, dataDir, pid) => {
      // The ceiling opens the read-model file once the api has caught up (opening it brings back indexes a bulk catch-up holds dropped).
      while ((await fetch(`${url}/api/v1/validate`).then((res) => res.text())).includes('catching up')) await new Promise((resolve) => setTimeout(resolve, 1000));
      const ceiling = startTsServer(join(__dirname, 'metrics-ceiling.server.ts'), [join(dataDir, 'read-models.sqlite'), from, to]);
      try {
        const ceilingUrl = await listeningUrl(ceiling);
        const { groups } = (await (await fetch(`${ceilingUrl}/?group_by=none`)).json()) as { groups: { incidents: number; canceled: number; duplicates: number }[] };
        const answered = groups[0].incidents + groups[0].canceled + groups[0].duplicates;
        const asked = await fetch(`${url}${path}`, { headers: auth });
        const rows = [...TABLE_HEAD];
        const bare = await withCpu(ceiling.pid!, () => load({ url: `${ceilingUrl}/?group_by=week`, connections: CONNECTIONS, duration: seconds }));
        rows.push(formatRow(`ceiling: a window of the copy + metricsGroups by week over node:http, ${CONNECTIONS} connections`, bare));
        let verdict = `The api answered the route ${asked.status}: it is not merged yet, so only the ceiling is measured.`;
        if (asked.ok) {
          const served = await withCpu(pid, () => load({ url: `${url}${path}`, headers: auth, connections: CONNECTIONS, duration: seconds }));
          rows.push(formatRow(`GET ${path.split('?')[0]}?group_by=week (a year, the same window: kept answers), ${CONNECTIONS} connections`, served));
          // Every request a window of its own (a millisecond later each), so no answer is kept: the cost of each fold.
          let shifted = 0;
          const distinct = () => `/api/v1/analytics/incidents?from=${new Date(Date.parse(from) + ++shifted).toISOString()}&to=${to}&group_by=week`;
          const cold = await withCpu(pid, () =>
            load({ url, headers: auth, connections: CONNECTIONS, duration: seconds, requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: distinct() }) }] }),
          );
          rows.push(formatRow(`GET ${path.split('?')[0]}?group_by=week (a year, every window new: nothing kept), ${CONNECTIONS} connections`, cold));
          verdict = [
            `Kept answers / ceiling: req/s **${(served.rps / bare.rps).toFixed(2)}**, p99 ${served.p99} against ${bare.p99} ms. Server CPU per request: ceiling ${(bare.cpuUs / 1000).toFixed(0)} ms, api ${(served.cpuUs / 1000).toFixed(1)} ms.`,
            `Every window new / ceiling: req/s **${(cold.rps / bare.rps).toFixed(2)}**, p99 ${cold.p99} against ${bare.p99} ms; api ${(cold.cpuUs / 1000).toFixed(0)} ms of CPU per request.`,
          ].join(' ');
        }
        return [
          `### The route over ${INCIDENTS.toLocaleString('en')} incidents`,
          '',
          `${INCIDENTS.toLocaleString('en')} incidents (${events.toLocaleString('en')} events: declared, a service for most, acknowledged, resolved, some canceled or duplicate) written straight into the ledger, then folded by the built api (SQLite, its reads worker) before the load, ${answered.toLocaleString('en')} of them in the window the caller sees; the caller is cleared for \`internal\`. The ceiling is \`bench/metrics-ceiling.server.ts\`: node:http answering the same window's metricsGroups from a copy in memory of the api's read-model file, read once at its start, without catching up, authentication, policy or the route's checks; it keeps no answer. ${seconds} s each (\`bench/metrics.bench.ts route\`). Every declaration was recorded during the seeding, so the year holds one or two ISO weeks: the aggregation's cost is per incident, not per group.`,
          '',
          ...rows,
          '',
          verdict,
        ].join('\n');
      } finally {
        ceiling.kill('SIGTERM');
        await new Promise((resolve) => ceiling.once('exit', resolve));
      }
    },
    async (dataDir) => {
      events = await seedIncidents(join(dataDir, 'events.sqlite'), INCIDENTS, false);
    },
  );
}

const PARTS: Record<string, (seconds: number) => Promise<string>> = { port, route, 'catch-up': catchUp };

/** `npm run bench -- metrics`: every part, as docs/benchmarks.md's section "Response metrics". */
export async function incidentMetrics(seconds: number): Promise<string> {
  const sections: string[] = [];
  for (const run of Object.values(PARTS)) sections.push(await run(seconds));
  return ['## Response metrics (issue 51)', '', ...sections.flatMap((section) => [section, ''])].join('\n').trim();
}

if (require.main === module) {
  const asked = process.argv.slice(2);
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  void (async () => {
    for (const name of asked.length ? asked : Object.keys(PARTS)) {
      const run = PARTS[name];
      if (!run) throw new Error(`part: one of ${Object.keys(PARTS).join(', ')}`);
      console.log(await run(seconds));
    }
  })();
}
