import { Inject, Injectable } from '@nestjs/common';
import { WEBHOOK_QUERIES, type WebhookQueries } from '@im/read-models';
import { webhookNotFound } from '@im/incidents';
import { toWebhookView, type WebhookView } from '@im/outbound';

/** What a webhooks admin reads of the registrations (the read model). */
@Injectable()
export class WebhookQueryService {
  constructor(@Inject(WEBHOOK_QUERIES) private readonly webhooks: WebhookQueries) {}

  async list(): Promise<WebhookView[]> {
    return (await this.webhooks.list()).map(toWebhookView);
  }

  async get(id: string): Promise<WebhookView> {
    const hook = await this.webhooks.findById(id);
    if (!hook) throw webhookNotFound(id);
    return toWebhookView(hook);
  }
}
