import { Agent } from 'node:https';
import webPush, { WebPushError } from 'web-push';
import type { PushSubscriptionRecord } from '@im/read-models';
import { BlockedAddressError, type CheckedDestination, checkDestination, pinnedLookup } from '../webhooks/webhook-address';
import { BLOCKED_ADDRESS } from '../webhooks/webhook-sender';
import { validSubscriptionKeys } from './push-subscription.input';
import type { VapidKeys } from './vapid-keys';

const INVALID_KEYS = 'invalid_subscription_keys';
/** How long a push service keeps a message for a device that is offline: a day, past which an incident's notice is stale (RFC 8030's TTL; not a knob). */
const TTL_SECONDS = 24 * 3600;

export type PushOutcome =
  | { result: 'delivered'; statusCode: number }
  /** 404 or 410: the subscription expired or was unsubscribed; it is removed. */
  | { result: 'gone'; statusCode: number }
  /** `final`: no retry can succeed (a refused address, keys nothing can be encrypted for). */
  | { result: 'failed'; statusCode: number | null; error: string; final?: boolean };

/**
 * Web Push (RFC 8030) with the payload encrypted for the subscription
 * (RFC 8291, aes128gcm) and signed by the VAPID key (RFC 8292), through the
 * `web-push` library. Endpoints at private addresses are refused at each
 * send, as webhook URLs are, unless PUSH_ALLOW_PRIVATE_NETWORKS.
 */
export class PushSender {
  constructor(
    private readonly keys: VapidKeys,
    private readonly timeoutMs: number,
    private readonly allowPrivateNetworks: boolean,
  ) {}

  async send(subscription: PushSubscriptionRecord, payload: string, urgent: boolean, topic: string): Promise<PushOutcome> {
    // Registered before keys were checked, or stored damaged: encryption can never succeed.
    if (!validSubscriptionKeys(subscription.keys)) return { result: 'failed', statusCode: null, error: INVALID_KEYS, final: true };
    try {
      const destination = await checkDestination(new URL(subscription.endpoint), this.allowPrivateNetworks, AbortSignal.timeout(this.timeoutMs));
      const { statusCode } = await this.request(subscription, payload, urgent, topic, destination);
      return { result: 'delivered', statusCode };
    } catch (error) {
      if (error instanceof BlockedAddressError) return { result: 'failed', statusCode: null, error: BLOCKED_ADDRESS, final: true };
      if (error instanceof DOMException && error.name === 'TimeoutError') return { result: 'failed', statusCode: null, error: 'timeout' };
      if (error instanceof WebPushError) {
        return error.statusCode === 404 || error.statusCode === 410 ? { result: 'gone', statusCode: error.statusCode } : { result: 'failed', statusCode: error.statusCode, error: 'push_error' };
      }
      return { result: 'failed', statusCode: null, error: 'push_error' };
    }
  }

  /**
   * The push request, ended `timeoutMs` after it starts however far it got (connecting, silent or
   * trickling its answer). web-push's own `timeout` is the socket's idle time only: a service trickling
   * its answer would hold every push behind it (one worker sends them in turn).
   */
  private async request(subscription: PushSubscriptionRecord, payload: string, urgent: boolean, topic: string, destination: CheckedDestination): Promise<{ statusCode: number }> {
    // The address checked is the one connected to: DNS cannot change in between.
    const agent = new Agent({ lookup: pinnedLookup(destination) });
    let deadline: NodeJS.Timeout | undefined;
    // web-push does not settle when its socket is destroyed mid-answer (it does not listen for the answer's errors): the deadline answers instead.
    const expired = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => {
        agent.destroy();
        reject(new DOMException('the push service did not answer in time', 'TimeoutError'));
      }, this.timeoutMs);
    });
    try {
      const sent = webPush.sendNotification({ endpoint: subscription.endpoint, keys: subscription.keys }, payload, {
        vapidDetails: this.keys,
        TTL: TTL_SECONDS,
        urgency: urgent ? 'high' : 'normal',
        // A message sent again (after a restart) replaces the first at the push service while it is undelivered.
        topic,
        agent,
      });
      return await Promise.race([sent, expired]);
    } finally {
      clearTimeout(deadline);
    }
  }
}
