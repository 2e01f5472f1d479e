import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ABORTED, type SendOutcome } from '../outbound/outbound-channel';
import { BlockedAddressError, checkDestination, pinnedLookup } from './webhook-address';
import { signWebhook } from './webhook-secret';

export const BLOCKED_ADDRESS = 'blocked_address';
export const TIMEOUT = 'timeout';
export const UNSUCCESSFUL_STATUS = 'unsuccessful_status';
/** A receiver's answer is read only this far (it is not kept): a huge answer costs nothing more. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'incident-service-webhooks/1';

export interface WebhookRequest {
  url: string;
  secret: string;
  messageId: string;
  body: string;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  now?: () => number;
}

/**
 * One Standard Webhooks delivery over HTTP(S). The host is resolved and
 * checked before each attempt (DNS can change after registration), and the
 * connection goes to the very address checked. Redirects are not followed
 * (a 3xx is a failure): a redirect could lead anywhere.
 */
export class WebhookSender {
  private readonly now: () => number;

  constructor(private readonly options: SenderOptions) {
    this.now = options.now ?? Date.now;
  }

  /** One keep-alive connection pool per registration: no registration waits for another's sockets. */
  static agents() {
    return { http: new HttpAgent({ keepAlive: true, maxSockets: 4 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 4 }) };
  }

  async send(webhook: WebhookRequest, agents: ReturnType<typeof WebhookSender.agents>, signal: AbortSignal): Promise<SendOutcome> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const cut = AbortSignal.any([signal, timeout]);
    try {
      const destination = await checkDestination(new URL(webhook.url), this.options.allowPrivateNetworks, cut);
      const timestamp = Math.floor(this.now() / 1000);
      const headers = {
        'content-type': 'application/cloudevents+json',
        'user-agent': USER_AGENT,
        'webhook-id': webhook.messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(webhook.secret, webhook.messageId, timestamp, webhook.body),
        'content-length': String(Buffer.byteLength(webhook.body)),
      };
      const https = destination.url.protocol === 'https:';
      const statusCode = await new Promise<number>((resolve, reject) => {
        const req = (https ? httpsRequest : httpRequest)(
          destination.url,
          { method: 'POST', headers, agent: https ? agents.https : agents.http, lookup: pinnedLookup(destination) as never, signal: cut },
          (res) => drain(res, () => resolve(res.statusCode ?? 0), reject),
        );
        req.on('error', reject);
        req.end(webhook.body);
      });
      return statusCode >= 200 && statusCode < 300
        ? { statusCode, error: null }
        : { statusCode, error: UNSUCCESSFUL_STATUS, gone: statusCode === 410 };
    } catch (error) {
      if (error instanceof BlockedAddressError) return { statusCode: null, error: BLOCKED_ADDRESS };
      if (signal.aborted) return { statusCode: null, error: ABORTED };
      if (timeout.aborted) return { statusCode: null, error: TIMEOUT };
      return { statusCode: null, error: errorCode(error) };
    }
  }
}

/** Reads the answer (to free the connection for the next delivery) without keeping it. */
function drain(res: IncomingMessage, done: () => void, fail: (error: unknown) => void): void {
  let seen = 0;
  res.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > MAX_ANSWER_BYTES) res.destroy();
  });
  res.on('end', done);
  res.on('close', done);
  res.on('error', fail);
}

/** A short, stable code for the log: the system error code (econnrefused, enotfound...) rather than a message. */
const errorCode = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' ? code.toLowerCase() : 'request_failed';
};
