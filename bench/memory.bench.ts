import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { withBuiltServer } from './support/load';
import { rebuildReadModels, seedLedger } from './timeline.bench';

const ADMIN = `Bearer ${token({ sub: 'bench', roles: ['webhooks.admin', 'timeline.writer', 'timeline.reader'], clearance: 'internal' }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const STREAM_SUBSCRIBERS = 1000;
const WEBHOOKS = 100;
const APPENDS_PER_SECOND = 20;
/** The seeded incident the streams watch and the notes go to. */
const INCIDENT = 'INC-000001f4';

/** Resident memory now and its high-water mark, MiB. */
function memoryOf(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Math.round(Number(status.match(new RegExp(`${field}:\\s+(\\d+) kB`))![1]) / 1024);
  return { now: mib('VmRSS'), peak: mib('VmHWM') };
}

async function post(url: string, body: unknown, contentType = 'application/json'): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { authorization: ADMIN, 'content-type': contentType }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

/** One SSE subscriber on a plain connection, counting the events it reads; resolves once the stream has started. */
function streamSubscriber(url: string, counted: { events: number }): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/incidents/${INCIDENT}/timeline/stream`, { headers: { authorization: ADMIN, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      res.setEncoding('utf8');
      // Every frame has one data line; the tail of a chunk is kept so that a line split between two chunks is counted once.
      let tail = '';
      res.on('data', (chunk: string) => {
        const text = tail + chunk;
        counted.events += text.split('\ndata: ').length - 1;
        tail = text.slice(-6);
      });
      res.on('error', () => undefined);
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Issue 21, item 5: the api's resident memory with 1,000,000 stored events (projected before the
 * start), 1,000 SSE subscribers on one incident's timeline and 100 webhook registrations, while
 * notes are appended to that incident for the run's length (each one delivered to every
 * subscriber and every registration). Sampled once a second; the target is 512 MiB.
 */
export async function memory(seconds: number): Promise<string> {
  const total = Number(process.env.BENCH_EVENTS ?? 1_000_000);
  let seeded = '';
  let webhookDeliveries = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      webhookDeliveries += 1;
      res.writeHead(204).end();
    });
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => receiver.once('listening', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    return await withBuiltServer(
      'bench-memory',
      { LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LIVE_QUEUE_LIMIT: '10000' },
      async (url, _dir, pid) => {
        const started = memoryOf(pid);
        for (let i = 0; i < WEBHOOKS; i += 1) await post(`${url}/api/v1/webhooks`, { url: `${hook}/${i}`, event_types: ['im.incident.note'] });
        const received = { events: 0 };
        const closers: (() => void)[] = [];
        for (let i = 0; i < STREAM_SUBSCRIBERS; i += 50) closers.push(...(await Promise.all(Array.from({ length: 50 }, () => streamSubscriber(url, received)))));
        const subscribed = memoryOf(pid);
        let highest = subscribed.now;
        const sampler = setInterval(() => (highest = Math.max(highest, memoryOf(pid).now)), 1000);
        let refused = 0;
        const begun = performance.now();
        const appends: Promise<unknown>[] = [];
        for (let n = 0; n < seconds * APPENDS_PER_SECOND; n += 1) {
          const wait = begun + (n * 1000) / APPENDS_PER_SECOND - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const note = { specversion: '1.0', id: randomUUID(), source: 'im://bench', type: 'im.incident.note', subject: `incident/${INCIDENT}`, time: new Date().toISOString(), data: { content: `note ${n}` } };
          appends.push(post(`${url}/api/v1/timeline/events`, note, 'application/cloudevents+json').catch(() => (refused += 1)));
        }
        await Promise.all(appends);
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        clearInterval(sampler);
        const end = memoryOf(pid);
        closers.forEach((close) => close());
        const appended = seconds * APPENDS_PER_SECOND - refused;
        return [
          '## Memory with a million events, 1,000 streams and 100 webhooks (issue 21)',
          '',
          `${seeded} The built api started on them (read models already projected), then ${WEBHOOKS} webhook registrations (one loopback receiver answering 204) and ${STREAM_SUBSCRIBERS} SSE subscribers on one incident's timeline (plain connections in the load generator), then notes appended to that incident at ${APPENDS_PER_SECOND}/s for ${seconds} s and 10 s more to deliver (\`bench/memory.bench.ts\`). RSS sampled every second. Target: ≤ 512 MiB.`,
          '',
          '| figure | value |',
          '|---|---|',
          `| RSS after start, ${total.toLocaleString('en')} events stored | ${started.now} MiB |`,
          `| RSS with the registrations and subscribers | ${subscribed.now} MiB |`,
          `| RSS, highest sample during the appends / at the end | ${highest} / ${end.now} MiB |`,
          `| **highest RSS over the process's life (VmHWM)** | **${end.peak} MiB** |`,
          `| notes appended (refused) | ${appended} (${refused}) |`,
          `| stream deliveries received / expected | ${received.events.toLocaleString('en')} / ${(appended * STREAM_SUBSCRIBERS).toLocaleString('en')} |`,
          `| webhook deliveries received (of ${(appended * WEBHOOKS).toLocaleString('en')} due; the rest still queued in the ledger's order) | ${webhookDeliveries.toLocaleString('en')} |`,
        ].join('\n');
      },
      async (dataDir) => {
        const seconds = await seedLedger(dataDir, total);
        seeded = `${total.toLocaleString('en')} events over 1,000 incidents written straight into the ledger (${seconds.toFixed(1)} s) and projected by \`npm run projections:rebuild\` (${rebuildReadModels(dataDir)}).`;
      },
    );
  } finally {
    receiver.closeAllConnections();
    receiver.close();
  }
}
