import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@im/incidents';
import { type DeliveryAttempt, OUTBOUND_STORE, type OutboundStore } from '@im/read-models';
import { type Principal } from '@im/access';
import { WEBHOOK_CHANNEL } from '@im/outbound';
import { WebhookQueryService } from './webhook-query.service';

/** The newest attempts a delivery log shows. */
export const DELIVERY_LOG_LIMIT = 100;

/** One attempt as the delivery log shows it. */
export interface DeliveryView {
  id: string;
  event_id: string;
  webhook_id: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

const toDeliveryView = (attempt: DeliveryAttempt): DeliveryView => ({
  id: attempt.id,
  event_id: attempt.eventId,
  webhook_id: attempt.messageId,
  attempt: attempt.attempt,
  attempted_at: attempt.attemptedAt,
  status_code: attempt.statusCode,
  error: attempt.error,
  duration_ms: attempt.durationMs,
});

/**
 * A registration's delivery log, and re-sends: asked for here, carried out
 * by the process that delivers (this one, or apps/projector).
 */
@Injectable()
export class WebhookDeliveries {
  constructor(
    @Inject(OUTBOUND_STORE) private readonly store: OutboundStore,
    private readonly webhooks: WebhookQueryService,
  ) {}

  async list(webhookId: string, admin: Principal): Promise<DeliveryView[]> {
    await this.webhooks.get(webhookId, admin);
    return (await this.store.attempts(WEBHOOK_CHANNEL, webhookId, DELIVERY_LOG_LIMIT)).map(toDeliveryView);
  }

  /** 404 for an unknown registration or delivery; 409 for a disabled registration (it answered 410: nothing more is sent to it). */
  async retry(webhookId: string, deliveryId: string, admin: Principal): Promise<void> {
    const webhook = await this.webhooks.get(webhookId, admin);
    const attempt = await this.store.findAttempt(WEBHOOK_CHANNEL, webhookId, deliveryId);
    if (!attempt) throw new NotFoundError(`Delivery ${deliveryId} of webhook ${webhookId} not found`);
    if (!webhook.enabled) throw new ConflictError(`Webhook ${webhookId} is disabled (its endpoint answered 410 Gone): register it again to deliver to it`);
    await this.store.requestResend({ id: randomUUID(), channel: WEBHOOK_CHANNEL, targetId: webhookId, attemptId: attempt.id, requestedAt: new Date().toISOString() });
  }
}
