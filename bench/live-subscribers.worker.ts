/**
 * The subscribers of bench/live-delivery.bench.ts, in a worker thread of
 * their own, so that reading 1,000 streams does not delay the appends it
 * times. The main thread writes each append's send time into a shared array
 * (`sentAt`, ms since the epoch); this thread measures each delivery against it.
 */
import { createClient } from 'graphql-ws';
import { build as histogram } from 'hdr-histogram-js';
import { type ClientRequest, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { cpuMs } from './support/cpu-time';

export interface SubscribersData {
  url: string;
  incidentId: string;
  reader: string;
  sentAt: SharedArrayBuffer;
}

/** `expected`: the events each subscriber should have (the appends the server accepted). */
export type ToSubscribers = { type: 'collect'; waitMs: number; expected: number } | { type: 'close' };

export interface KindReport {
  name: string;
  subscribers: number;
  complete: number;
  p50: number;
  p99: number;
}

export interface SubscribersReport {
  /** The same figures per kind of subscriber (SSE, graphql-ws). */
  kinds: KindReport[];
  subscribers: number;
  complete: number;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
  ended: number;
  /** CPU time this thread spent (ms) from `opened` to this report: the subscribers' own cost of the deliveries. */
  cpuMs: number;
}

const now = () => performance.timeOrigin + performance.now();

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
      const req: ClientRequest = request(`${url}/api/v1/incidents/${incidentId}/timeline/stream`, { headers: { authorization: (workerData as SubscribersData).reader, accept: 'text/event-stream' }, agent: false });
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
        connectionParams: { Authorization: (workerData as SubscribersData).reader },
        retryAttempts: 0,
        lazy: false,
        on: {
          connected: () =>
            setTimeout(
              () =>
                resolve(() => {
                  closing = true;
                  void client.dispose();
                }),
              SUBSCRIBE_SETTLE_MS,
            ),
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


async function main(): Promise<void> {
  const { url, incidentId, sentAt: shared } = workerData as SubscribersData;
  const sentAt = new Float64Array(shared);
  const newHistogram = () => histogram({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });
  const latency = newHistogram();
  const latencyByKind = new Map(SUBSCRIBER_KINDS.map((kind) => [kind.name, newHistogram()]));
  const subscribers: { kind: string; received: number; seen: Uint8Array; distinct: number }[] = [];
  const closers: (() => void)[] = [];
  let ended = 0;
  for (const kind of SUBSCRIBER_KINDS) {
    const kindLatency = latencyByKind.get(kind.name)!;
    for (let n = 0; n < kind.count; n++) {
      const subscriber = { kind: kind.name, received: 0, seen: new Uint8Array(sentAt.length), distinct: 0 };
      subscribers.push(subscriber);
      closers.push(
        await kind.open(
          url,
          incidentId,
          (sequence) => {
            // Concurrent appends are stored in any order: each once is what is checked (the e2e tests check order).
            if (!subscriber.seen[sequence]) subscriber.distinct++;
            subscriber.seen[sequence] = 1;
            subscriber.received++;
            // Microseconds, to keep the histogram's integer precision below a millisecond.
            if (!sentAt[sequence]) return;
            const micros = Math.max(1, Math.round((now() - sentAt[sequence]) * 1000));
            latency.recordValue(micros);
            kindLatency.recordValue(micros);
          },
          () => ended++,
        ),
      );
    }
  }
  const cpuAtOpen = cpuMs('/proc/thread-self');
  parentPort!.postMessage({ type: 'opened' });
  parentPort!.on('message', async (message: ToSubscribers) => {
    if (message.type === 'close') {
      closers.forEach((close) => close());
      return;
    }
    const deadline = Date.now() + message.waitMs;
    while (subscribers.some((s) => s.received < message.expected) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const isComplete = (s: (typeof subscribers)[number]) => s.distinct === message.expected && s.received === s.distinct;
    const report: SubscribersReport = {
      kinds: SUBSCRIBER_KINDS.map(({ name }) => {
        const ofKind = subscribers.filter((s) => s.kind === name);
        const kindLatency = latencyByKind.get(name)!;
        return { name, subscribers: ofKind.length, complete: ofKind.filter(isComplete).length, p50: kindLatency.getValueAtPercentile(50) / 1000, p99: kindLatency.getValueAtPercentile(99) / 1000 };
      }),
      subscribers: subscribers.length,
      complete: subscribers.filter(isComplete).length,
      deliveries: latency.totalCount,
      p50: latency.getValueAtPercentile(50) / 1000,
      p99: latency.getValueAtPercentile(99) / 1000,
      max: latency.maxValue / 1000,
      ended,
      cpuMs: cpuMs('/proc/thread-self') - cpuAtOpen,
    };
    parentPort!.postMessage({ type: 'report', report });
  });
}

void main();
