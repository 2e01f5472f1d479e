import { Module } from '@nestjs/common';
import { WebhookDeliveryModule } from '@im/outbound';
import { WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookQueryService } from './webhook-query.service';
import { WebhooksController } from './webhooks.controller';

@Module({
  imports: [WebhookDeliveryModule],
  controllers: [WebhooksController],
  providers: [WebhookQueryService, WebhookDeliveries],
})
export class WebhooksModule {}
