import { Inject, Injectable } from '@nestjs/common';
import { WEBHOOK_QUERIES, type WebhookQueries, type WebhookRecord } from '@im/read-models';
import { webhookNotFound } from '@im/incidents';
import { IncidentVisibility, type Principal } from '@im/access';
import { toWebhookView, type WebhookView } from '@im/outbound';

/**
 * What a webhooks admin reads of the registrations (the read model): only those sent no more
 * than the admin may read itself. Another's registration at a higher clearance or data class
 * answers as unknown, so its delivery log (event ids, times) tells nothing of what is withheld.
 */
@Injectable()
export class WebhookQueryService {
  constructor(
    @Inject(WEBHOOK_QUERIES) private readonly webhooks: WebhookQueries,
    private readonly visibility: IncidentVisibility,
  ) {}

  async list(admin: Principal): Promise<WebhookView[]> {
    return (await this.webhooks.list()).filter((hook) => this.readable(hook, admin)).map(toWebhookView);
  }

  async get(id: string, admin: Principal): Promise<WebhookView> {
    const hook = await this.webhooks.findById(id);
    if (!hook || !this.readable(hook, admin)) throw webhookNotFound(id);
    return toWebhookView(hook);
  }

  private readable(hook: WebhookRecord, admin: Principal): boolean {
    return this.visibility.levelsFor(admin).includes(hook.clearance) && hook.dataAccess.every((dataClass) => (admin.dataAccess as readonly string[]).includes(dataClass));
  }
}
