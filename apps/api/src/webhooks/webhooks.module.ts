import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@im/config';
import { LedgerModule } from '../ledger/ledger.module';
import { WebhookCommandHandler } from './webhook-command.handler';
import { WebhookQueryService } from './webhook-query.service';
import { WEBHOOK_SECRET_KEY, webhookSecretKey } from './webhook-secret';
import { WebhooksController } from './webhooks.controller';

@Module({
  imports: [LedgerModule],
  controllers: [WebhooksController],
  providers: [WebhookCommandHandler, WebhookQueryService, { provide: WEBHOOK_SECRET_KEY, inject: [APP_CONFIG], useFactory: webhookSecretKey }],
  exports: [WebhookCommandHandler, WEBHOOK_SECRET_KEY],
})
export class WebhooksModule {}
