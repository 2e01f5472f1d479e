/**
 * The subscribers of bench/live-delivery.bench.ts, in worker threads of
 * their own (each thread `part` of `parts` of every kind), so that reading
 * 1,100 streams neither delays the appends it times nor waits for one
 * thread's turn on a two-core machine. The main thread writes each append's
 * send time into a shared array (`sentAt`, ms since the epoch); each thread
 * measures its deliveries against it and reports its latencies as encoded
 * histograms, which the bench merges.
 */
import { createClient } from 'graphql-ws';
import { build as histogram, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { type ClientRequest, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { cpuMs } from './support/cpu-time';

export interface SubscribersData {
  url: string;
  incidentId: string;
  reader: string;
  sentAt: SharedArrayBuffer;
  /** This thread's share: every `parts`-th subscriber of each kind, from the `part`-th. */
  part: number;
  parts: number;
}

/** `expected`: the events each subscriber should have (the appends the server accepted). */
export type ToSubscribers = { type: 'collect'; waitMs: number; expected: number } | { type: 'close' };

export interface KindReport {
  name: string;
  subscribers: number;
  complete: number;
  /** Append sent → delivered, µs (hdr-histogram-js, encodeIntoCompressedBase64). */
  latency: string;
}

/** One thread's report. */
export interface SubscribersReport {
  /** The same figures per kind of subscriber (SSE, graphql-ws). */
  kinds: KindReport[];
  subscribers: number;
  complete: number;
  latency: string;
  ended: number;
  /** CPU time this thread spent (ms) from `opened` to this report: the subscribers' own cost of the deliveries. */
  cpuMs: number;
  /** Per note (by sequence number), when this thread's first and last SSE subscriber and last graphql-ws subscriber received it (ms since the epoch; 0: not received): for bench/live-trace-stages.ts. */
  receipts: { firstSse: number[]; lastSse: number[]; lastGql: number[] };
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

const FRAME_END = Buffer.from('\n\n');
const CONTENT = Buffer.from('"content":"n');
const SOURCE = Buffer.from('","source"');

/**
 * The sequence numbers of the notes in `text` up to `end`, from each event's
 * own `"content":"n<sequence>","source"` (data.content repeats it, followed
 * by another member), on the bytes: no decoding, no regular expression.
 */
function readSequences(text: Buffer, end: number, onDelivery: OnDelivery): void {
  for (let at = text.indexOf(CONTENT); at >= 0 && at < end; at = text.indexOf(CONTENT, at + CONTENT.length)) {
    let i = at + CONTENT.length;
    let sequence = 0;
    for (let c = text[i]; c >= 0x30 && c <= 0x39; c = text[++i]) sequence = sequence * 10 + (c - 0x30);
    if (i > at + CONTENT.length && text.compare(SOURCE, 0, SOURCE.length, i, i + SOURCE.length) === 0) onDelivery(sequence);
  }
}

/**
 * An SSE subscriber on a plain HTTP connection: the load generator shares the
 * server's two cores, so it finds the notes in the bytes as they come rather
 * than running a full EventSource per connection (test/live-sse.e2e.spec.ts
 * covers the `eventsource` client).
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
        let tail: Buffer | undefined;
        res.on('data', (chunk: Buffer) => {
          const text = tail ? Buffer.concat([tail, chunk]) : chunk;
          const end = text.lastIndexOf(FRAME_END);
          if (end < 0) {
            tail = text;
            return;
          }
          readSequences(text, end, onDelivery);
          tail = end + 2 < text.length ? text.subarray(end + 2) : undefined;
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
  const { url, incidentId, sentAt: shared, part, parts } = workerData as SubscribersData;
  const sentAt = new Float64Array(shared);
  const newHistogram = () => histogram({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });
  const latency = newHistogram();
  const latencyByKind = new Map(SUBSCRIBER_KINDS.map((kind) => [kind.name, newHistogram()]));
  const subscribers: { kind: string; received: number; seen: Uint8Array; distinct: number }[] = [];
  const closers: (() => void)[] = [];
  const firstSse = new Float64Array(sentAt.length);
  const lastSse = new Float64Array(sentAt.length);
  const lastGql = new Float64Array(sentAt.length);
  let ended = 0;
  for (const kind of SUBSCRIBER_KINDS) {
    const kindLatency = latencyByKind.get(kind.name)!;
    for (let n = part; n < kind.count; n += parts) {
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
            const t = now();
            if (kind.name === 'SSE') {
              if (!firstSse[sequence]) firstSse[sequence] = t;
              lastSse[sequence] = t;
            } else lastGql[sequence] = t;
            const micros = Math.max(1, Math.round((t - sentAt[sequence]) * 1000));
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
        return { name, subscribers: ofKind.length, complete: ofKind.filter(isComplete).length, latency: encodeIntoCompressedBase64(kindLatency) };
      }),
      subscribers: subscribers.length,
      complete: subscribers.filter(isComplete).length,
      latency: encodeIntoCompressedBase64(latency),
      ended,
      cpuMs: cpuMs('/proc/thread-self') - cpuAtOpen,
      receipts: { firstSse: [...firstSse], lastSse: [...lastSse], lastGql: [...lastGql] },
    };
    parentPort!.postMessage({ type: 'report', report });
  });
}

void main();
