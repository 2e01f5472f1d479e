import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The CloudEvent, as the reference library verified and parsed it; undefined when the signature did not verify. */
  event?: Record<string, unknown> & { id: string; type: string; data?: Record<string, unknown> };
  verifyError?: string;
}

/** What the receiver answers to the n-th request (from 0): a status, or 'hang' to never answer. */
export type Answer = (n: number, received: Received) => number | 'hang';

/**
 * A real HTTP endpoint that checks every delivery with the Standard Webhooks
 * reference library (`standardwebhooks`) once it knows the secret.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secret?: string;
  private server?: Server;
  private readonly hanging = new Set<() => void>();

  constructor(private answer: Answer = () => 204) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const received: Received = { headers: req.headers, body };
        if (this.secret) {
          try {
            received.event = new Webhook(this.secret).verify(body, req.headers as Record<string, string>) as Received['event'];
          } catch (error) {
            received.verifyError = (error as Error).message;
          }
        }
        const n = this.received.length;
        this.received.push(received);
        const status = this.answer(n, received);
        if (status === 'hang') {
          this.hanging.add(() => res.destroy());
          return;
        }
        res.writeHead(status).end();
      });
    });
    this.server.listen(0, '127.0.0.1');
    await new Promise((resolve) => this.server!.once('listening', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  answerWith(answer: Answer): void {
    this.answer = answer;
  }

  /** Events that were answered with success, in the order they arrived. */
  delivered(succeeded: (n: number) => boolean = () => true): Received[] {
    return this.received.filter((_r, n) => succeeded(n));
  }

  async waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms; received ${this.received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async close(): Promise<void> {
    this.hanging.forEach((destroy) => destroy());
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
