import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@im/config';
import { LedgerModule } from '@im/write-path';
import { IncidentQueryService, TimelineAuthorizer } from '@im/access';
import { WebhookCommandHandler } from './webhook-command.handler';
import { WebhookDelivery } from './webhook-delivery.service';
import { WEBHOOK_SECRET_KEY, webhookSecretKey } from './webhook-secret';

/**
 * The webhooks' write side and their delivery: imported by the api, and by
 * apps/projector, which delivers when the api runs with PROJECTOR=external
 * (WebhookDelivery.active). It needs PolicyModule and the persistence ports.
 */
@Module({
  imports: [LedgerModule],
  providers: [
    WebhookCommandHandler,
    WebhookDelivery,
    IncidentQueryService,
    TimelineAuthorizer,
    { provide: WEBHOOK_SECRET_KEY, inject: [APP_CONFIG], useFactory: webhookSecretKey },
  ],
  exports: [WebhookCommandHandler, WebhookDelivery],
})
export class WebhookDeliveryModule {}
