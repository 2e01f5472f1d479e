import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { decodeFromCompressedBase64, type Histogram } from 'hdr-histogram-js';
import type { SubscribersData, SubscribersReport, ToSubscribers } from './live-subscribers.worker';
import { cpuMs } from './support/cpu-time';
import { load, type LoadResult, withBuiltServer } from './support/load';
import { tsWorker } from './support/ts-worker';

const WRITER = `Bearer ${token({ sub: 'bench-writer', roles: ['timeline.writer'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
/** One token for every subscriber: a fleet of wall dashboards. (The feed asks the policy once per batch and kind of caller.) */
const READER = `Bearer ${token({ sub: 'bench-dashboard', roles: ['timeline.reader'], clearance: 'internal' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const APPENDS_PER_SECOND = 200;
const THROUGHPUT_SECONDS = 10;
const CONNECTIONS = 8;
/** Threads the subscribers are spread over: one thread reading 1,100 sockets could itself be what delays the deliveries it times. */
const SUBSCRIBER_THREADS = 2;

/** Write system calls (write, writev, …) a process has made: with the deliveries, how many events a socket write carries. */
const writeCalls = (pid: number) => Number(readFileSync(`/proc/${pid}/io`, 'utf8').match(/syscw:\s+(\d+)/)![1]);

const rssMiB = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;

const noteBody = (incidentId: string, sequence: number | string) =>
  JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://bench', type: 'im.incident.note', time: new Date().toISOString(), subject: `incident/${incidentId}`, data: { content: `n${sequence}`, service: 'bench' } });

/** As many appends as 8 connections can make (autocannon), to one incident. */
const maxAppends = (url: string, incidentId: string): Promise<LoadResult> =>
  load({
    url: `${url}/api/v1/timeline/events`,
    connections: CONNECTIONS,
    duration: THROUGHPUT_SECONDS,
    headers: { authorization: WRITER, 'content-type': 'application/cloudevents+json' },
    requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, body: noteBody(incidentId, 'x') }) }],
  });

/** Set: the server records when each note passed each stage of live delivery (apps/api/src/live/live-trace.ts), and the bench writes the send, answer and receipt times beside it (`<file>.bench.json`). */
const LIVE_TRACE_FILE = process.env.LIVE_TRACE_FILE;

/** Appends a note per entry of `sentAt` at `perSecond`, open loop (each on time, whatever the answers take), writing each one's send time (ms since the epoch) into it and its answer's into `answeredAt`; answers how many were refused. */
async function pacedAppends(url: string, incidentId: string, sentAt: Float64Array, answeredAt: number[], perSecond: number): Promise<number> {
  const total = sentAt.length;
  let failed = 0;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sentAt[i] = performance.timeOrigin + performance.now();
    inFlight.push(
      fetch(`${url}/api/v1/timeline/events`, { method: 'POST', headers: { authorization: WRITER, 'content-type': 'application/cloudevents+json' }, body: noteBody(incidentId, i) }).then(
        async (res) => {
          await res.arrayBuffer();
          answeredAt[i] = performance.timeOrigin + performance.now();
          if (res.status !== 201) failed++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(inFlight);
  return failed;
}

/** One thread of subscribers (ts-node in the worker too): resolves `opened` once its subscribers are subscribed. */
function subscribersWorker(data: SubscribersData) {
  const { next, send, close } = tsWorker<ToSubscribers>('live-subscribers.worker.ts', data);
  return {
    opened: next('opened'),
    /** Waits up to `waitMs` for every subscriber to have every event, then reports. */
    collect: async (waitMs: number, expected: number): Promise<SubscribersReport> => {
      const report = next('report');
      send({ type: 'collect', waitMs, expected });
      return (await report).report;
    },
    close,
  };
}

/** The threads' reports as one: counts and CPU added up, latencies from the merged histograms (ms). */
function merged(reports: SubscribersReport[]) {
  const histogramOf = (encoded: string[]): Histogram => {
    const [first, ...rest] = encoded.map((e) => decodeFromCompressedBase64(e));
    rest.forEach((h) => first.add(h));
    return first;
  };
  const sum = (of: (r: SubscribersReport) => number) => reports.reduce((total, r) => total + of(r), 0);
  const all = histogramOf(reports.map((r) => r.latency));
  return {
    kinds: reports[0].kinds.map(({ name }) => {
      const ofKind = reports.map((r) => r.kinds.find((k) => k.name === name)!);
      const latency = histogramOf(ofKind.map((k) => k.latency));
      return { name, subscribers: ofKind.reduce((n, k) => n + k.subscribers, 0), complete: ofKind.reduce((n, k) => n + k.complete, 0), p50: latency.getValueAtPercentile(50) / 1000, p99: latency.getValueAtPercentile(99) / 1000 };
    }),
    subscribers: sum((r) => r.subscribers),
    complete: sum((r) => r.complete),
    deliveries: all.totalCount,
    p50: all.getValueAtPercentile(50) / 1000,
    p99: all.getValueAtPercentile(99) / 1000,
    max: all.maxValue / 1000,
    ended: sum((r) => r.ended),
    cpuMs: sum((r) => r.cpuMs),
    receipts: reports.map((r) => r.receipts),
  };
}

/** The subscribers, spread over SUBSCRIBER_THREADS threads. */
function subscriberThreads(data: Omit<SubscribersData, 'part' | 'parts'>) {
  const threads = Array.from({ length: SUBSCRIBER_THREADS }, (_, part) => subscribersWorker({ ...data, part, parts: SUBSCRIBER_THREADS }));
  return {
    opened: Promise.all(threads.map((t) => t.opened)),
    collect: async (waitMs: number, expected: number) => merged(await Promise.all(threads.map((t) => t.collect(waitMs, expected)))),
    close: () => threads.forEach((t) => t.close()),
  };
}

/**
 * Issue 16's target: 1,000 SSE subscribers on one incident plus 100
 * graphql-ws subscribers to its timelineEvent (SUBSCRIBER_KINDS in bench/live-subscribers.worker.ts), 200 appends/s
 * for the run's length: does every subscriber receive every event, how long
 * from the append being sent to each delivery (p50, p99), how much RSS the
 * subscribers take, and how many appends/s the service takes with the
 * subscribers connected against without them. The issue's "appends/s with
 * subscribers ≥ 0.9 × without" is read two ways, both reported: at the
 * offered 200/s (the paced run keeps up: accepted per second against the
 * offered rate, which without subscribers the service takes with room to
 * spare), and as the most appends/s 8 connections make with the subscribers
 * connected and receiving every one against without them, in the same run
 * (ABA: without, with, without). The second is the stricter: every append
 * is delivered 1,100 times, and the load generator's subscribers share the
 * two cores with the server. Run with `npm run bench -- live-delivery`; the paper target
 * is 30 s (BENCH_SECONDS=30).
 */
export async function liveDelivery(seconds: number): Promise<string> {
  return withBuiltServer('bench-live-delivery', { LOG_LEVEL: 'warn', ...(LIVE_TRACE_FILE ? { LIVE_TRACE_FILE } : {}) }, async (url, _dir, pid) => {
    const created = await fetch(`${url}/api/v1/incidents`, { method: 'POST', headers: { authorization: WRITER, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Live delivery bench', severity: 'SEV-2' }) });
    const { id: incidentId } = (await created.json()) as { id: string };
    const cpuBeforeAppends = cpuMs(`/proc/${pid}`);
    const without1 = await maxAppends(url, incidentId);
    // The server's CPU per append alone, to tell the deliveries' share of the paced run's.
    const serverMsPerAppend = (cpuMs(`/proc/${pid}`) - cpuBeforeAppends) / without1.requests;
    const rssBefore = rssMiB(pid);

    const total = APPENDS_PER_SECOND * seconds;
    const shared = new SharedArrayBuffer(total * Float64Array.BYTES_PER_ELEMENT);
    const worker = subscriberThreads({ url, incidentId, reader: READER, sentAt: shared });
    await worker.opened;
    const rssSubscribed = rssMiB(pid);

    const started = performance.now();
    const cpuBeforePaced = cpuMs(`/proc/${pid}`);
    const writesBeforePaced = writeCalls(pid);
    const answeredAt: number[] = [];
    const failed = await pacedAppends(url, incidentId, new Float64Array(shared), answeredAt, APPENDS_PER_SECOND);
    const pacedSeconds = (performance.now() - started) / 1000;
    const paced = await worker.collect(30_000, total - failed);
    if (LIVE_TRACE_FILE) writeFileSync(`${LIVE_TRACE_FILE}.bench.json`, JSON.stringify({ sentAt: [...new Float64Array(shared)], answeredAt, receipts: paced.receipts }));
    const serverPacedMs = cpuMs(`/proc/${pid}`) - cpuBeforePaced;
    const pacedWrites = writeCalls(pid) - writesBeforePaced;
    const serverDeliveryMs = serverPacedMs - serverMsPerAppend * total;
    const microsPerDelivery = (ms: number) => ((ms * 1000) / Math.max(1, paced.deliveries)).toFixed(1);
    const rssAfter = rssMiB(pid);

    const withSubscribers = await maxAppends(url, incidentId);
    const afterThroughput = await worker.collect(0, total - failed);
    worker.close();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const without2 = await maxAppends(url, incidentId);

    const withoutRps = (without1.rps + without2.rps) / 2;
    const subscriberCount = paced.subscribers;
    return [
      '## Live delivery (issue 16)',
      '',
      `${subscriberCount} subscribers (bench/live-subscribers.worker.ts, real SSE and graphql-ws clients spread over ${SUBSCRIBER_THREADS} worker threads) on one incident, one token; ${total} notes appended at ${APPENDS_PER_SECOND}/s (open loop, ${pacedSeconds.toFixed(1)} s); then as many appends as ${CONNECTIONS} connections make in ${THROUGHPUT_SECONDS} s, without subscribers, with them (every append delivered to every subscriber), and without again.`,
      '',
      '| figure | value |',
      '|---|---|',
      `| appends refused in the paced run | ${failed} |`,
      `| subscribers that received every accepted append's event, each once | ${paced.complete} of ${subscriberCount} |`,
      `| subscribers the server disconnected: in the paced run / in the throughput run | ${paced.ended} / ${afterThroughput.ended - paced.ended} |`,
      `| deliveries | ${paced.deliveries} of ${(total - failed) * subscriberCount} |`,
      `| append sent → delivered, p50 / p99 / max ms | ${paced.p50.toFixed(1)} / ${paced.p99.toFixed(1)} / ${paced.max.toFixed(1)} |`,
      ...paced.kinds.map((k) => `| ${k.name}: received every event, each once; sent → delivered p50 / p99 ms | ${k.complete} of ${k.subscribers}; ${k.p50.toFixed(1)} / ${k.p99.toFixed(1)} |`),
      `| RSS: before subscribers / subscribed / after the run, MiB | ${rssBefore.toFixed(0)} / ${rssSubscribed.toFixed(0)} / ${rssAfter.toFixed(0)} |`,
      `| RSS growth per 1,000 subscribers (subscribed / after the run), MiB | ${(((rssSubscribed - rssBefore) * 1000) / subscriberCount).toFixed(1)} / ${(((rssAfter - rssBefore) * 1000) / subscriberCount).toFixed(1)} |`,
      `| CPU per delivered event, µs: server (the paced run's CPU less ${(serverMsPerAppend * 1000).toFixed(0)} µs per append) / subscribers' threads | ${microsPerDelivery(serverDeliveryMs)} / ${microsPerDelivery(paced.cpuMs)} |`,
      `| the server's write system calls in the paced run, per delivered event | ${pacedWrites} (${(pacedWrites / Math.max(1, paced.deliveries)).toFixed(3)}) |`,
      `| CPU of the paced run, s: server / subscribers' threads | ${(serverPacedMs / 1000).toFixed(1)} / ${(paced.cpuMs / 1000).toFixed(1)} |`,
      `| appends/s without subscribers (before, after) | ${without1.rps}, ${without2.rps} |`,
      `| appends/s at the offered ${APPENDS_PER_SECOND}/s with the subscribers: accepted per second of the paced run | ${((total - failed) / pacedSeconds).toFixed(0)} (${((total - failed) / pacedSeconds / APPENDS_PER_SECOND).toFixed(2)} × offered) |`,
      `| appends/s at the most ${CONNECTIONS} connections make, with the subscribers connected | ${withSubscribers.rps} (${(withSubscribers.rps / withoutRps).toFixed(2)} × without) |`,
      `| append p99 ms without / with | ${Math.max(without1.p99, without2.p99)} / ${withSubscribers.p99} |`,
      // What the strict reading asks of the load generator alone: every one of 0.9 × the appends/s without subscribers read by every subscriber.
      `| cores the subscribers' threads alone would need to read 0.9 × the appends/s without subscribers, at the paced run's CPU per delivered event | ${((0.9 * withoutRps * subscriberCount * paced.cpuMs) / Math.max(1, paced.deliveries) / 1000).toFixed(1)} of the machine's ${availableParallelism()} |`,
    ].join('\n');
  });
}
