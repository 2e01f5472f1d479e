import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { IncidentVisibility, type Principal, WEBHOOKS_ADMIN_ROLE } from '@im/access';
import { type CreatedWebhook, WebhookCommandHandler } from '@im/outbound';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { parseCreateWebhookBody } from './create-webhook.body';
import { WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookQueryService } from './webhook-query.service';
import { WebhooksApiDocs } from './webhooks.api-docs';

@WebhooksApiDocs.controller
@RequireRole(WEBHOOKS_ADMIN_ROLE)
@Controller('api/v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: WebhookCommandHandler,
    private readonly webhooks: WebhookQueryService,
    private readonly deliveries: WebhookDeliveries,
    private readonly visibility: IncidentVisibility,
  ) {}

  @Post()
  @HttpCode(201)
  @WebhooksApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal): Promise<CreatedWebhook> {
    return this.commands.register(parseCreateWebhookBody(body, admin, this.visibility.levelsFor(admin)), admin.sub);
  }

  @Get()
  @WebhooksApiDocs.list
  async list(@CurrentPrincipal() admin: Principal) {
    return { items: await this.webhooks.list(admin) };
  }

  @Get(':id')
  @WebhooksApiDocs.get
  get(@Param('id') id: string, @CurrentPrincipal() admin: Principal) {
    return this.webhooks.get(id, admin);
  }

  @Get(':id/deliveries')
  @WebhooksApiDocs.deliveries
  async listDeliveries(@Param('id') id: string, @CurrentPrincipal() admin: Principal) {
    return { items: await this.deliveries.list(id, admin) };
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @WebhooksApiDocs.retry
  async retry(@Param('id') id: string, @Param('delivery_id') deliveryId: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.deliveries.retry(id, deliveryId, admin);
  }

  @Delete(':id')
  @HttpCode(204)
  @WebhooksApiDocs.remove
  async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.remove(id, admin.sub);
  }
}
