import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { ABORTED, type SendOutcome } from '../outbound/outbound-channel';
import { BlockedAddressError, type CheckedDestination, checkDestination, checkLiteralDestination, pinnedLookup } from './webhook-address';
import { signWebhook, webhookKey } from './webhook-secret';

export const BLOCKED_ADDRESS = 'blocked_address';
export const TIMEOUT = 'timeout';
export const UNSUCCESSFUL_STATUS = 'unsuccessful_status';
/** A receiver's answer is read only this far (it is not kept): a huge answer costs nothing more. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'incident-service-webhooks/1';

/** What every delivery to a registration reuses: its url parsed, its signing key decoded, its own keep-alive pools. */
export class WebhookEndpoint {
  readonly url: URL;
  /** The url as request options, worked out once rather than on every request. */
  readonly requestOptions: RequestOptions;
  /** undefined when the secret did not open: nothing unsigned is ever sent. */
  readonly key: Buffer | undefined;
  /** One pool per registration, so no registration waits for another's sockets. */
  readonly agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 4 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 4 }) };

  constructor(url: string, secret: string | undefined) {
    this.url = new URL(url);
    this.requestOptions = urlToHttpOptions(this.url);
    this.key = secret === undefined ? undefined : webhookKey(secret);
  }

  destroy(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  now?: () => number;
}

/** The request ran out of time (one timer per attempt, not an AbortSignal pair: those cost more than the request at 10,000 a second). */
class TimedOut extends Error {}
class Aborted extends Error {}

/**
 * One Standard Webhooks delivery over HTTP(S). The host is checked before
 * each attempt (DNS can change after registration), and the connection goes
 * to the very address checked. Redirects are not followed (a 3xx is a
 * failure): a redirect could lead anywhere.
 */
export class WebhookSender {
  private readonly now: () => number;
  private readonly destinations: DestinationCache;

  constructor(private readonly options: SenderOptions) {
    this.now = options.now ?? Date.now;
    this.destinations = new DestinationCache(options.allowPrivateNetworks, this.now);
  }

  /** One attempt; resolves (never rejects) with its outcome, `aborted` when `signal` stopped it. */
  async send(endpoint: WebhookEndpoint, messageId: string, body: string, signal: AbortSignal): Promise<SendOutcome> {
    if (signal.aborted) return { statusCode: null, error: ABORTED };
    const deadline = this.now() + this.options.timeoutMs;
    try {
      const destination = await this.destinations.check(endpoint.url, this.options.timeoutMs);
      const timestamp = Math.floor(this.now() / 1000);
      const headers = {
        'content-type': 'application/cloudevents+json',
        'user-agent': USER_AGENT,
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(endpoint.key!, messageId, timestamp, body),
        'content-length': String(Buffer.byteLength(body)),
      };
      const statusCode = await post(destination, headers, body, endpoint, signal, Math.max(0, deadline - this.now()));
      return statusCode >= 200 && statusCode < 300
        ? { statusCode, error: null }
        : { statusCode, error: UNSUCCESSFUL_STATUS, gone: statusCode === 410 };
    } catch (error) {
      if (error instanceof BlockedAddressError) return { statusCode: null, error: BLOCKED_ADDRESS };
      if (signal.aborted || error instanceof Aborted) return { statusCode: null, error: ABORTED };
      if (error instanceof TimedOut || (error as Error).name === 'TimeoutError') return { statusCode: null, error: TIMEOUT };
      return { statusCode: null, error: errorCode(error) };
    }
  }
}

/** POSTs to the checked address, cut by `signal` or after `timeoutMs`; resolves with the answer's status once it is read. */
function post(destination: CheckedDestination, headers: Record<string, string>, body: string, endpoint: WebhookEndpoint, signal: AbortSignal, timeoutMs: number): Promise<number> {
  const https = destination.url.protocol === 'https:';
  return new Promise<number>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(
      { ...endpoint.requestOptions, method: 'POST', headers, agent: https ? endpoint.agents.https : endpoint.agents.http, lookup: pinnedLookup(destination) as never },
      (res) => drain(res, () => resolve(res.statusCode ?? 0), reject),
    );
    const timer = setTimeout(() => req.destroy(new TimedOut()), timeoutMs);
    const abort = () => req.destroy(new Aborted());
    signal.addEventListener('abort', abort, { once: true });
    req.on('close', () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** How long a host name's checked addresses are used before it is resolved and checked again. */
export const DESTINATION_TTL_MS = 10_000;

/**
 * The checked destination of each url, a name's for DESTINATION_TTL_MS: a
 * name is not resolved on every delivery (10,000 lookups a second would
 * queue on libuv's four threads). A connection still only ever goes to an
 * address that passed the check; a name that now resolves elsewhere is
 * followed (and refused, if it must be) within the TTL. An address in the
 * url needs no lookup and is checked on every delivery.
 */
class DestinationCache {
  private readonly checked = new Map<string, { destination: CheckedDestination; until: number }>();

  constructor(
    private readonly allowPrivate: boolean,
    private readonly now: () => number,
  ) {}

  async check(url: URL, timeoutMs: number): Promise<CheckedDestination> {
    const literal = checkLiteralDestination(url, this.allowPrivate);
    if (literal) return literal;
    const cached = this.checked.get(url.href);
    if (cached && cached.until > this.now()) return cached.destination;
    const destination = await checkDestination(url, this.allowPrivate, AbortSignal.timeout(timeoutMs));
    this.checked.set(url.href, { destination, until: this.now() + DESTINATION_TTL_MS });
    return destination;
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
