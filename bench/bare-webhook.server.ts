/**
 * The ceiling for webhook delivery: plain node:http taking the same three
 * requests the webhook bench makes of the service (register a webhook, open
 * an incident, append a note), and sending each appended event to every
 * registration with the service's own sender (`WebhookSender`: Standard
 * Webhooks signature, undici's connection pool per registration), one
 * delivery at a time per registration as the service sends. Nothing else:
 * no ledger, no delivery log, no checkpoint, no redaction, no retry. What
 * this machine can send at all, to compare the service's lag and CPU with
 * in the same run.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { newWebhookSecret, WebhookEndpoint, WebhookSender } from '@im/outbound';

interface Registration {
  endpoint: WebhookEndpoint;
  /** Never aborted: the sender listens to it while a delivery is in flight. */
  signal: AbortSignal;
  /** The registration's deliveries go one at a time, as the service's do. */
  sending: Promise<unknown>;
}

const registrations: Registration[] = [];
const sender = new WebhookSender({ timeoutMs: 10_000, connections: 4, allowPrivateNetworks: true });

function deliver(id: string, body: string): void {
  for (const registration of registrations) {
    registration.sending = registration.sending.then(() => sender.send(registration.endpoint, id, body, registration.signal));
  }
}

const answer = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      if (req.url === '/api/v1/webhooks') {
        const secret = newWebhookSecret();
        registrations.push({ endpoint: new WebhookEndpoint(body.url, secret), signal: new AbortController().signal, sending: Promise.resolve() });
        return answer(res, 201, { secret });
      }
      if (req.url === '/api/v1/incidents') return answer(res, 201, { id: randomUUID() });
      if (req.url === '/api/v1/timeline/events') {
        answer(res, 201, { event_id: body.id, created: true });
        return deliver(`msg_${body.id}`, JSON.stringify(body));
      }
      answer(res, 404, { error: 'not found', status: 404 });
    } catch (error) {
      answer(res, 400, { error: String(error), status: 400 });
    }
  });
}).listen(0, '127.0.0.1', function (this: Server) {
  const address = this.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${address.port},`);
});
