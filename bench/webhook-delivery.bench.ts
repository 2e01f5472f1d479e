import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../test/support/tokens';
import { withBuiltServer } from './support/load';

const ADMIN = `Bearer ${token({ sub: 'bench', roles: ['webhooks.admin', 'timeline.writer', 'timeline.reader'] }, { expiresIn: '4h' }, DEVELOPMENT_JWT_SECRET)}`;
const SUBSCRIPTIONS = 100;
const APPENDS_PER_SECOND = 100;
const INCIDENTS = 10;
/** After the last append, how long stragglers may take before they count as missing. */
const DRAIN_MS = 15_000;

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

interface Receiver {
  server: Server;
  url: string;
  /** When each event id arrived (first delivery). */
  arrivals: Map<string, number>;
}

/** A loopback endpoint that notes when each event first arrives; `hang` never answers. */
async function receiver(hang: boolean): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    const id = req.headers['webhook-id'];
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const eventId = (JSON.parse(body) as { id: string }).id;
      if (!arrivals.has(eventId)) arrivals.set(eventId, performance.now());
      if (!hang && id) res.writeHead(204).end();
    });
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals };
}

async function postJson(url: string, body: unknown, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { authorization: ADMIN, 'content-type': contentType }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

interface Run {
  lagsMs: number[];
  missing: number;
  appended: number;
  failedAppends: number;
}

/** One run on a fresh server: 100 registrations, notes at 100/s for `seconds`; lag = first arrival − append sent, over the healthy receivers. */
async function run(seconds: number, hanging: boolean): Promise<Run> {
  const receivers = await Promise.all(Array.from({ length: SUBSCRIPTIONS }, (_, i) => receiver(hanging && i === 0)));
  try {
    return await withBuiltServer('bench-webhooks', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' }, async (url) => {
      for (const r of receivers) await postJson(`${url}/api/v1/webhooks`, { url: r.url, event_types: ['im.incident.note'] });
      const incidents: string[] = [];
      for (let i = 0; i < INCIDENTS; i += 1) incidents.push((await postJson(`${url}/api/v1/incidents`, { title: `bench ${i}`, severity: 'SEV-3' })).id as string);
      const sent = new Map<string, number>();
      let failedAppends = 0;
      const started = performance.now();
      const inFlight: Promise<unknown>[] = [];
      for (let n = 0; n < seconds * APPENDS_PER_SECOND; n += 1) {
        const due = started + (n * 1000) / APPENDS_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const id = randomUUID();
        const sentAt = performance.now();
        const event = { specversion: '1.0', id, source: 'im://bench', type: 'im.incident.note', subject: `incident/${incidents[n % INCIDENTS]}`, time: new Date().toISOString(), data: { content: `note ${n}` } };
        // An append the server could not take (overloaded) is counted, not fatal: only acknowledged ones are awaited.
        inFlight.push(postJson(`${url}/api/v1/timeline/events`, event, 'application/cloudevents+json').then(() => sent.set(id, sentAt), () => (failedAppends += 1)));
      }
      await Promise.all(inFlight);
      const healthy = receivers.slice(hanging ? 1 : 0);
      const deadline = performance.now() + DRAIN_MS;
      while (performance.now() < deadline && healthy.some((r) => r.arrivals.size < sent.size)) await new Promise((resolve) => setTimeout(resolve, 100));
      const acknowledged = healthy.flatMap((r) => [...r.arrivals].filter(([id]) => sent.has(id)));
      return { lagsMs: acknowledged.map(([id, at]) => at - sent.get(id)!).sort((a, b) => a - b), missing: healthy.length * sent.size - acknowledged.length, appended: sent.size, failedAppends };
    });
  } finally {
    for (const r of receivers) {
      r.server.closeAllConnections();
      r.server.close();
    }
  }
}

const row = (name: string, r: Run) =>
  `| ${name} | ${r.appended} (${r.failedAppends} refused) | ${r.lagsMs.length} | ${r.missing} | ${percentile(r.lagsMs, 50).toFixed(0)} | ${percentile(r.lagsMs, 99).toFixed(0)} | ${r.lagsMs.length ? r.lagsMs[r.lagsMs.length - 1].toFixed(0) : '-'} |`;

/**
 * Webhook delivery lag: 100 registrations with loopback receivers, notes
 * appended at 100/s (10,000 deliveries a second), then the same with one
 * receiver that never answers. Lag is from sending the append to the first
 * arrival at a healthy receiver.
 */
export async function webhookDelivery(seconds: number): Promise<string> {
  const healthy = await run(seconds, false);
  const withHanging = await run(seconds, true);
  return [
    '## Webhook delivery',
    '',
    `${SUBSCRIPTIONS} registrations, receivers on loopback (in the load generator's process), \`im.incident.note\` appended at ${APPENDS_PER_SECOND}/s for ${seconds} s over ${INCIDENTS} incidents: ${SUBSCRIPTIONS * APPENDS_PER_SECOND} deliveries a second. Lag: from sending the append to the event's first arrival, over the healthy receivers. The second run has one receiver that never answers (WEBHOOK_TIMEOUT_MS 10 s).`,
    '',
    '| Run | Appends | Deliveries | Missing | Lag p50 ms | Lag p99 ms | Lag max ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('100 healthy', healthy),
    row('99 healthy + 1 hanging', withHanging),
    '',
    `Same-run ratio, p99 with one hanging receiver to p99 without: ${(percentile(withHanging.lagsMs, 99) / percentile(healthy.lagsMs, 99)).toFixed(2)}.`,
  ].join('\n');
}
