import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { type Principal, WEBHOOKS_ADMIN_ROLE } from '../auth/principal';
import { parseCreateWebhookBody } from './create-webhook.body';
import { WebhookCommandHandler } from './webhook-command.handler';
import { WebhookQueryService } from './webhook-query.service';
import type { CreatedWebhook } from './webhook.view';
import { WebhooksApiDocs } from './webhooks.api-docs';

@WebhooksApiDocs.controller
@RequireRole(WEBHOOKS_ADMIN_ROLE)
@Controller('api/v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: WebhookCommandHandler,
    private readonly webhooks: WebhookQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @WebhooksApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal): Promise<CreatedWebhook> {
    return this.commands.register(parseCreateWebhookBody(body), admin.sub);
  }

  @Get()
  @WebhooksApiDocs.list
  async list() {
    return { items: await this.webhooks.list() };
  }

  @Get(':id')
  @WebhooksApiDocs.get
  get(@Param('id') id: string) {
    return this.webhooks.get(id);
  }

  @Delete(':id')
  @HttpCode(204)
  @WebhooksApiDocs.remove
  async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.remove(id, admin.sub);
  }
}
