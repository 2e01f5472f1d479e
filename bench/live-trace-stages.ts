/**
 * Where a live delivery waited: reads what `LIVE_TRACE_FILE=<file> npm run
 * bench -- live-delivery` left (the api's `<file>`, the bench's
 * `<file>.bench.json`) and prints, per stage, how long after the append was
 * sent each note got there (p50 / p90 / p99 / max, ms), each stage's own
 * share, the flush ticks, and the api's memory over the run.
 * Run: `npx ts-node --transpile-only bench/live-trace-stages.ts <file>`.
 */
import { readFileSync } from 'node:fs';

type ServerRecord = { read?: number; projected?: number; offered?: number; firstWrite?: number; lastWrite?: number; writes: number };
type Receipts = { firstSse: number[]; lastSse: number[]; lastGql: number[] };

const file = process.argv[2];
const server = JSON.parse(readFileSync(file, 'utf8')) as { events: [number, ServerRecord][]; ticks: number[][]; memory?: number[][] };
const bench = JSON.parse(readFileSync(`${file}.bench.json`, 'utf8')) as { sentAt: number[]; answeredAt: number[]; receipts: Receipts[] };

const percentiles = (values: (number | undefined)[]) => {
  const sorted = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1) : '-');
  return `${at(50)} / ${at(90)} / ${at(99)} / ${at(100)}`;
};

const records = new Map(server.events);
const overThreads = (pick: (r: Receipts) => number[], i: number, better: (a: number, b: number) => number) =>
  bench.receipts.map((r) => pick(r)[i]).filter((t) => t > 0).reduce((a, b) => better(a, b), NaN as number) || undefined;
const rows = bench.sentAt.map((sent, i) => {
  const r = records.get(i) ?? { writes: 0 };
  return {
    sent,
    answered: bench.answeredAt[i],
    read: r.read,
    projected: r.projected,
    offered: r.offered,
    firstWrite: r.firstWrite,
    lastWrite: r.lastWrite,
    firstReceipt: overThreads((x) => x.firstSse, i, (a, b) => (Number.isNaN(a) ? b : Math.min(a, b))),
    lastReceipt: overThreads((x) => x.lastSse, i, (a, b) => (Number.isNaN(a) ? b : Math.max(a, b))),
    lastGraphqlWs: overThreads((x) => x.lastGql, i, (a, b) => (Number.isNaN(a) ? b : Math.max(a, b))),
  };
});
type Row = (typeof rows)[number];
const since = (stage: keyof Row, from: keyof Row = 'sent') => rows.map((r) => (r[stage] !== undefined && r[from] !== undefined ? r[stage]! - r[from]! : undefined));

const lines = ['| ms after the append was sent (p50 / p90 / p99 / max) | |', '|---|---|'];
for (const stage of ['answered', 'read', 'projected', 'offered', 'firstWrite', 'lastWrite', 'firstReceipt', 'lastReceipt', 'lastGraphqlWs'] as const) lines.push(`| ${stage} | ${percentiles(since(stage))} |`);
lines.push('', '| each stage on its own, ms (p50 / p90 / p99 / max) | |', '|---|---|');
const steps: [keyof Row, keyof Row, string][] = [
  ['sent', 'read', 'append stored and synced, then read by the feed'],
  ['read', 'projected', 'the read models pass the batch'],
  ['projected', 'offered', 'policy and offer to every subscriber'],
  ['offered', 'firstWrite', 'wait for the flush tick'],
  ['firstWrite', 'lastWrite', 'first to last SSE write of the event'],
  ['lastWrite', 'lastReceipt', 'last SSE write to the last SSE receipt (client side)'],
];
for (const [from, to, what] of steps) lines.push(`| ${what} | ${percentiles(since(to, from))} |`);
const column = (j: number) => percentiles(server.ticks.map((t) => t[j]));
lines.push('', `| flush ticks (${server.ticks.length}), p50 / p90 / p99 / max | |`, '|---|---|');
[
  ['writes', 1],
  ['writing, ms', 2],
  ['fire to last slice (wall), ms', 3],
  ['slices', 4],
  ['next interval, ms', 5],
].forEach(([name, j]) => lines.push(`| ${name} | ${column(j as number)} |`));
const gaps = server.ticks.slice(1).map((t, i) => t[0] - server.ticks[i][0]);
lines.push(`| between two ticks' ends, ms | ${percentiles(gaps)} |`);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
lines.push('', '| the api\'s memory, MiB: rss / heapTotal / heapUsed / external / arrayBuffers | |', '|---|---|');
for (const [t, ...m] of (server.memory ?? []).filter((_, i, all) => i % 5 === 0 || i === all.length - 1)) lines.push(`| ${((t - server.memory![0][0]) / 1000).toFixed(0)} s | ${m.map(mib).join(' / ')} |`);
console.log(lines.join('\n'));
