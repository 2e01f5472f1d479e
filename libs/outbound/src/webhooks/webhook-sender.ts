import type { LookupFunction } from 'node:net';
import { type Dispatcher, Pool } from 'undici';
import { ABORTED, type SendOutcome } from '../outbound-channel';
import { BlockedAddressError, type CheckedDestination, checkDestination, checkLiteralDestination, pinnedLookup } from './webhook-address';
import { signWebhook, webhookKey } from './webhook-secret';

export const BLOCKED_ADDRESS = 'blocked_address';
export const TIMEOUT = 'timeout';
export const UNSUCCESSFUL_STATUS = 'unsuccessful_status';
/** A receiver's answer is read only this far (it is not kept): a huge answer costs nothing more. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'incident-service-webhooks/1';
/**
 * What every delivery to a registration reuses: its url, its signing key
 * decoded, and its own keep-alive connections (undici's: they cost less CPU
 * per request than node:http's agent, which counts at 10,000 deliveries a
 * second), so no registration waits for another's. Up to WEBHOOK_CONNECTIONS at
 * once: the worker's deliveries go one at a time, and manual re-sends
 * (several at once after an outage) go beside them rather than queue.
 */
export class WebhookEndpoint {
  readonly url: URL;
  /** undefined when the secret did not open: nothing unsigned is ever sent. */
  readonly key: Buffer | undefined;
  /** The address last checked: a new connection goes there, whatever the name resolves to by then. */
  private checked?: CheckedDestination;
  private pool?: Pool;

  constructor(url: string, secret: string | undefined) {
    this.url = new URL(url);
    this.key = secret === undefined ? undefined : webhookKey(secret);
  }

  /**
   * The connections, each made (again) only to `destination` from now on: the address each delivery checked just before.
   * Connecting may take the whole of an attempt (`timeoutMs`, the sender's, taken when the pool is made), not undici's
   * own 10 s; the attempt's timer ends it, so undici's is set a second later (its timers above 1 s tick every 499 ms
   * and may fire that much early).
   */
  poolTo(destination: CheckedDestination, { timeoutMs, connections }: Pick<SenderOptions, 'timeoutMs' | 'connections'>): Pool {
    this.checked = destination;
    this.pool ??= new Pool(this.url.origin, { connections, connectTimeout: timeoutMs + 1000, connect: { lookup: this.lookupChecked } });
    return this.pool;
  }

  private readonly lookupChecked: LookupFunction = (hostname, options, callback) => pinnedLookup(this.checked!)(hostname, options, callback as never);

  destroy(): void {
    void this.pool?.destroy().catch(() => undefined);
  }
}

export interface SenderOptions {
  timeoutMs: number;
  /** Keep-alive connections per registration (WEBHOOK_CONNECTIONS). */
  connections: number;
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
      };
      const pool = endpoint.poolTo(destination, this.options);
      const statusCode = await post(pool, `${endpoint.url.pathname}${endpoint.url.search}`, headers, body, signal, Math.max(0, deadline - this.now()));
      return statusCode >= 200 && statusCode < 300
        ? { statusCode, error: null }
        : { statusCode, error: UNSUCCESSFUL_STATUS, gone: statusCode === 410 };
    } catch (error) {
      if (error instanceof BlockedAddressError) return { statusCode: null, error: BLOCKED_ADDRESS };
      // A destroyed pool: delivery to the registration stopped (removed, or disabled by a 410) while this attempt was under way.
      if (signal.aborted || error instanceof Aborted || (error as NodeJS.ErrnoException).code === 'UND_ERR_DESTROYED') return { statusCode: null, error: ABORTED };
      if (error instanceof TimedOut || (error as Error).name === 'TimeoutError') return { statusCode: null, error: TIMEOUT };
      return { statusCode: null, error: errorCode(error) };
    }
  }
}

/** The answer was longer than is read: its status still counts. */
class AnswerTooLong extends Error {}

/** POSTs through the registration's connections, cut by `signal` or after `timeoutMs`; resolves with the answer's status once it is read. */
function post(pool: Pool, path: string, headers: Record<string, string>, body: string, signal: AbortSignal, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    /** Why the request was cut before undici started it (connecting, or queued behind others): it is dropped as it starts. */
    let cutBefore: Error | undefined;
    let statusCode = 0;
    let seen = 0;
    const settle = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    };
    const cut = (reason: Error) => {
      if (controller) return controller.abort(reason);
      // undici cannot take back a request it has not started: the attempt ends now all the same.
      cutBefore ??= reason;
      settle();
      reject(reason);
    };
    // Stopped while the address was checked: an aborted signal fires no more.
    if (signal.aborted) return reject(new Aborted());
    const timer = setTimeout(() => cut(new TimedOut()), timeoutMs);
    const abort = () => cut(new Aborted());
    signal.addEventListener('abort', abort, { once: true });
    pool.dispatch(
      { path, method: 'POST', headers, body },
      {
        onRequestStart(started) {
          controller = started;
          if (cutBefore) started.abort(cutBefore);
        },
        onResponseStart(_, status) {
          statusCode = status;
        },
        onResponseData(reading, chunk) {
          seen += chunk.length;
          if (seen > MAX_ANSWER_BYTES) reading.abort(new AnswerTooLong());
        },
        onResponseEnd() {
          settle();
          resolve(statusCode);
        },
        onResponseError(_, error) {
          settle();
          if (error instanceof AnswerTooLong) resolve(statusCode);
          else reject(error);
        },
      },
    );
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

/**
 * A short, stable code for the log rather than a message: the system error
 * code (econnrefused, econnreset...), or undici's without its prefix
 * (UND_ERR_SOCKET, the receiver closed the connection before answering, is
 * `connection_closed`).
 */
const errorCode = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'UND_ERR_SOCKET') return 'connection_closed';
  return typeof code === 'string' ? code.replace(/^UND_ERR_/, '').toLowerCase() : 'request_failed';
};
