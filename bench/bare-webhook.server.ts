/**
 * The ceiling for webhook delivery: plain node:http, taking the same three
 * requests the webhook bench makes of the service (register a webhook, open
 * an incident, append a note) and sending each appended event to every
 * registration as a Standard Webhooks delivery, signed with the service's
 * own `signWebhook`, over a keep-alive pool of 4 sockets per registration as
 * the service's sender has. Nothing else: no ledger, no delivery log, no
 * checkpoint, no redaction, no retry, no order kept. What this machine can
 * send at all, to compare the service's lag and CPU with in the same run.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { newWebhookSecret, signWebhook, webhookKey } from '../apps/api/src/webhooks/webhook-secret';

interface Registration {
  url: URL;
  key: Buffer;
  agent: Agent;
}

const registrations: Registration[] = [];

function deliver(id: string, body: string): void {
  for (const { url, key, agent } of registrations) {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/cloudevents+json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(key, id, timestamp, body),
      'content-length': String(Buffer.byteLength(body)),
    };
    request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers }, (res) => res.resume()).end(body);
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
        registrations.push({ url: new URL(body.url), key: webhookKey(secret), agent: new Agent({ keepAlive: true, maxSockets: 4 }) });
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
