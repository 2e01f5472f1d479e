import { createClient } from 'graphql-ws';
import { build as histogram } from 'hdr-histogram-js';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type ClientRequest, request } from 'node:http';
import { WebSocket } from 'ws';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { load, type LoadResult, withBuiltServer } from './support/load';

const WRITER = `Bearer ${token({ sub: 'bench-writer', roles: ['timeline.writer'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
/** One token for every subscriber: a fleet of wall dashboards. (The feed asks the policy once per batch and kind of caller.) */
const READER = `Bearer ${token({ sub: 'bench-dashboard', roles: ['timeline.reader'], clearance: 'internal' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const APPENDS_PER_SECOND = 200;
const THROUGHPUT_SECONDS = 10;
const CONNECTIONS = 8;

/** Called by a subscriber for every note it receives: the note's sequence number. */
type OnDelivery = (sequence: number) => void;

/** A kind of live subscriber: `open` connects one and resolves once it is subscribed; it answers how to close it. `onEnd`: the server ended it. */
interface SubscriberKind {
  name: string;
  count: number;
  open: (url: string, incidentId: string, onDelivery: OnDelivery, onEnd: () => void) => Promise<() => void>;
}

/**
 * An SSE subscriber on a plain HTTP connection: the load generator shares the
 * server's two cores, so it reads frames with a regular expression rather
 * than a full EventSource per connection (test/live-sse.e2e.spec.ts covers the
 * `eventsource` client).
 */
const sseSubscribers = (count: number): SubscriberKind => ({
  name: 'SSE',
  count,
  open: (url, incidentId, onDelivery, onEnd) =>
    new Promise((resolve, reject) => {
      let closing = false;
      const req: ClientRequest = request(`${url}/api/v1/incidents/${incidentId}/timeline/stream`, { headers: { authorization: READER, accept: 'text/event-stream' }, agent: false });
      req.on('response', (res) => {
        if (res.statusCode !== 200) return reject(new Error(`subscribe answered ${res.statusCode}`));
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          tail += chunk;
          const end = tail.lastIndexOf('\n\n');
          if (end < 0) return;
          // The event's own content (data.content repeats it further on).
          for (const match of tail.slice(0, end).matchAll(/"content":"n(\d+)","source"/g)) onDelivery(Number(match[1]));
          tail = tail.slice(end + 2);
          // The first bytes (": stream open") mean the subscription is registered.
          resolve(() => {
            closing = true;
            req.destroy();
          });
        });
        res.on('close', () => closing || onEnd());
      });
      req.on('error', reject);
      req.end();
    }),
});

/** graphql-transport-ws acknowledges a connection, never a subscription: after the ack, this long for the server to register it. */
const SUBSCRIBE_SETTLE_MS = 50;
const TIMELINE_EVENT = 'subscription ($incidentId: ID!) { timelineEvent(incidentId: $incidentId) { summary } }';

/**
 * A graphql-ws subscriber (the real client, on ws's WebSocket, one socket each)
 * to `timelineEvent(incidentId)`: a note's summary is its content, `n<sequence>`.
 */
const graphqlWsSubscribers = (count: number): SubscriberKind => ({
  name: 'graphql-ws',
  count,
  open: (url, incidentId, onDelivery, onEnd) =>
    new Promise((resolve, reject) => {
      let closing = false;
      let ended = false;
      const end = () => {
        if (closing || ended) return;
        ended = true;
        onEnd();
      };
      const client = createClient({
        url: `${url.replace(/^http/, 'ws')}/api/v1/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: READER },
        retryAttempts: 0,
        lazy: false,
        on: {
          connected: () =>
            setTimeout(() =>
              resolve(() => {
                closing = true;
                void client.dispose();
              }), SUBSCRIBE_SETTLE_MS),
          closed: end,
        },
      });
      client.subscribe<{ timelineEvent: { summary: string } }>({ query: TIMELINE_EVENT, variables: { incidentId } }, {
        next: ({ data }) => {
          const sequence = /^n(\d+)$/.exec(data?.timelineEvent.summary ?? '')?.[1];
          if (sequence !== undefined) onDelivery(Number(sequence));
        },
        error: (error) => (ended || closing ? undefined : reject(error instanceof Error ? error : new Error(JSON.stringify(error)))),
        complete: end,
      });
    }),
});

const SUBSCRIBER_KINDS: SubscriberKind[] = [sseSubscribers(1000), graphqlWsSubscribers(100)];

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

/** Appends `total` notes at `perSecond`, open loop (each on time, whatever the answers take); answers the send time of each. */
async function pacedAppends(url: string, incidentId: string, sentAt: Float64Array, perSecond: number): Promise<number> {
  const total = sentAt.length;
  let failed = 0;
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sentAt[i] = performance.now();
    inFlight.push(
      fetch(`${url}/api/v1/timeline/events`, { method: 'POST', headers: { authorization: WRITER, 'content-type': 'application/cloudevents+json' }, body: noteBody(incidentId, i) }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 201) failed++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(inFlight);
  return failed;
}

/**
 * Issue 16's target: 1,000 SSE subscribers on one incident plus 100
 * graphql-ws subscribers to its timelineEvent (SUBSCRIBER_KINDS), 200 appends/s
 * for the run's length: does every subscriber receive every event, how long
 * from the append being sent to each delivery (p50, p99), how much RSS the
 * subscribers take, and how many appends/s the service takes with the
 * subscribers connected against without them, in the same run (ABA: without,
 * with, without). Run with `npm run bench -- live-delivery`; the paper target
 * is 30 s (BENCH_SECONDS=30).
 */
export async function liveDelivery(seconds: number): Promise<string> {
  return withBuiltServer('bench-live-delivery', { LOG_LEVEL: 'warn' }, async (url, _dir, pid) => {
    const created = await fetch(`${url}/api/v1/incidents`, { method: 'POST', headers: { authorization: WRITER, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Live delivery bench', severity: 'SEV-2' }) });
    const { id: incidentId } = (await created.json()) as { id: string };
    const without1 = await maxAppends(url, incidentId);
    const rssBefore = rssMiB(pid);

    const total = APPENDS_PER_SECOND * seconds;
    const subscribers = SUBSCRIBER_KINDS.flatMap((kind) => Array.from({ length: kind.count }, () => ({ kind: kind.name, received: 0, inOrder: true, next: 0 })));
    const newHistogram = () => histogram({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000, numberOfSignificantValueDigits: 3 });
    const latency = newHistogram();
    const latencyByKind = new Map(SUBSCRIBER_KINDS.map((kind) => [kind.name, newHistogram()]));
    const sentAt = new Float64Array(total);
    let ended = 0;
    const closers: (() => void)[] = [];
    let index = 0;
    for (const kind of SUBSCRIBER_KINDS) {
      const kindLatency = latencyByKind.get(kind.name)!;
      for (let n = 0; n < kind.count; n++) {
        const subscriber = subscribers[index++];
        closers.push(
          await kind.open(url, incidentId, (sequence) => {
            if (sequence !== subscriber.next) subscriber.inOrder = false;
            subscriber.next = sequence + 1;
            subscriber.received++;
            // Microseconds, to keep the histogram's integer precision below a millisecond.
            if (!sentAt[sequence]) return;
            const micros = Math.max(1, Math.round((performance.now() - sentAt[sequence]) * 1000));
            latency.recordValue(micros);
            kindLatency.recordValue(micros);
          }, () => ended++),
        );
      }
    }
    const rssSubscribed = rssMiB(pid);

    // The paced run: sentAt is filled as each append is sent, before its deliveries can arrive.
    const started = performance.now();
    const failed = await pacedAppends(url, incidentId, sentAt, APPENDS_PER_SECOND);
    const pacedSeconds = (performance.now() - started) / 1000;
    const deadline = Date.now() + 30_000;
    while (subscribers.some((s) => s.received < total) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const rssAfter = rssMiB(pid);
    const complete = subscribers.filter((s) => s.received === total && s.inOrder).length;
    const endedInRun = ended;

    const withSubscribers = await maxAppends(url, incidentId);
    closers.forEach((close) => close());
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const without2 = await maxAppends(url, incidentId);

    const ms = (p: number) => (latency.getValueAtPercentile(p) / 1000).toFixed(1);
    const withoutRps = (without1.rps + without2.rps) / 2;
    const subscriberCount = subscribers.length;
    return [
      '### Live delivery (issue 16)',
      '',
      `${SUBSCRIBER_KINDS.map((k) => `${k.count} ${k.name}`).join(' + ')} subscribers on one incident, one token; ${total} notes appended at ${APPENDS_PER_SECOND}/s (open loop, ${pacedSeconds.toFixed(1)} s); then as many appends as ${CONNECTIONS} connections make in ${THROUGHPUT_SECONDS} s, without subscribers, with them, and without again.`,
      '',
      '| figure | value |',
      '|---|---|',
      `| appends refused in the paced run | ${failed} |`,
      `| subscribers that received every event, in order | ${complete} of ${subscriberCount} |`,
      `| subscribers the server disconnected: in the paced run / in the throughput run | ${endedInRun} / ${ended - endedInRun} |`,
      `| deliveries | ${latency.totalCount} of ${total * subscriberCount} |`,
      ...SUBSCRIBER_KINDS.map((kind) => {
        const ofKind = subscribers.filter((s) => s.kind === kind.name);
        const kindLatency = latencyByKind.get(kind.name)!;
        const kindMs = (p: number) => (kindLatency.getValueAtPercentile(p) / 1000).toFixed(1);
        return `| ${kind.name}: every event in order; append sent → delivered, p50 / p99 ms | ${ofKind.filter((s) => s.received === total && s.inOrder).length} of ${ofKind.length}; ${kindMs(50)} / ${kindMs(99)} |`;
      }),
      `| append sent → delivered, p50 / p99 / max ms | ${ms(50)} / ${ms(99)} / ${(latency.maxValue / 1000).toFixed(1)} |`,
      `| RSS: before subscribers / subscribed / after the run, MiB | ${rssBefore.toFixed(0)} / ${rssSubscribed.toFixed(0)} / ${rssAfter.toFixed(0)} |`,
      `| RSS growth per 1,000 subscribers (subscribed / after the run), MiB | ${(((rssSubscribed - rssBefore) * 1000) / subscriberCount).toFixed(1)} / ${(((rssAfter - rssBefore) * 1000) / subscriberCount).toFixed(1)} |`,
      `| appends/s without subscribers (before, after) | ${without1.rps}, ${without2.rps} |`,
      `| appends/s with the subscribers connected | ${withSubscribers.rps} (${(withSubscribers.rps / withoutRps).toFixed(2)} × without) |`,
      `| append p99 ms without / with | ${Math.max(without1.p99, without2.p99)} / ${withSubscribers.p99} |`,
    ].join('\n');
  });
}
