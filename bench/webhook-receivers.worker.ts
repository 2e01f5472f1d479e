/**
 * The receivers of bench/webhook-delivery.bench.ts, in a worker thread of
 * their own, so that taking 10,000 deliveries a second does not delay the
 * appends the main thread paces and times. Each is a real HTTP endpoint on
 * loopback that verifies every delivery with `standardwebhooks` and notes
 * when each event first arrived (ms since the epoch, the clock both threads share).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';
import { cpuMs } from './support/cpu-time';

export interface ReceiversData {
  count: number;
  /** The receiver at this index never answers (-1: none). */
  hanging: number;
}

export type ToReceivers =
  | { type: 'secrets'; secrets: string[] }
  /** Waits up to `waitMs` for every healthy receiver to have each of `ids`, then reports their arrivals. */
  | { type: 'collect'; waitMs: number; ids: string[] }
  | { type: 'close' };

export interface ReceiversReport {
  /** Per healthy receiver: [event id, first arrival] of the ids asked for. */
  arrivals: [string, number][][];
  /** Deliveries whose signature did not verify. */
  badSignatures: number;
  /** Requests taken, repeats included. */
  requests: number;
  /** CPU time of this thread (ms) since the receivers opened. */
  cpuMs: number;
}

const now = () => performance.timeOrigin + performance.now();

interface Receiver {
  server: Server;
  arrivals: Map<string, number>;
  verifier?: Webhook;
}

const { count, hanging } = workerData as ReceiversData;
let badSignatures = 0;
let requests = 0;

function receiver(hang: boolean): Receiver {
  const self: Receiver = { server: undefined as never, arrivals: new Map() };
  self.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests += 1;
      const body = Buffer.concat(chunks).toString();
      try {
        const event = self.verifier!.verify(body, req.headers as Record<string, string>) as { id: string };
        if (!self.arrivals.has(event.id)) self.arrivals.set(event.id, now());
      } catch {
        badSignatures += 1;
      }
      if (!hang) res.writeHead(204).end();
    });
  }).listen(0, '127.0.0.1');
  return self;
}

const receivers = Array.from({ length: count }, (_, i) => receiver(i === hanging));
const cpuAtStart = cpuMs('/proc/thread-self');

void Promise.all(receivers.map((r) => new Promise((resolve) => r.server.once('listening', resolve)))).then(() =>
  parentPort!.postMessage({ type: 'opened', urls: receivers.map((r) => `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`) }),
);

parentPort!.on('message', async (message: ToReceivers) => {
  if (message.type === 'secrets') {
    message.secrets.forEach((secret, i) => (receivers[i].verifier = new Webhook(secret)));
    parentPort!.postMessage({ type: 'ready' });
  } else if (message.type === 'collect') {
    const healthy = receivers.filter((_, i) => i !== hanging);
    const deadline = Date.now() + message.waitMs;
    while (Date.now() < deadline && healthy.some((r) => message.ids.some((id) => !r.arrivals.has(id)))) await new Promise((resolve) => setTimeout(resolve, 100));
    const report: ReceiversReport = {
      arrivals: healthy.map((r) => message.ids.flatMap((id): [string, number][] => (r.arrivals.has(id) ? [[id, r.arrivals.get(id)!]] : []))),
      badSignatures,
      requests,
      cpuMs: cpuMs('/proc/thread-self') - cpuAtStart,
    };
    parentPort!.postMessage({ type: 'report', report });
  } else {
    for (const r of receivers) {
      r.server.closeAllConnections();
      r.server.close();
    }
    parentPort!.close();
  }
});
