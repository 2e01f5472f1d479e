import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { INTEGRATIONS_ADMIN_ROLE, type Principal } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { parseCreateIntegrationKeyBody } from './create-integration-key.body';
import { IntegrationKeyCommandHandler } from './integration-key-command.handler';
import { IntegrationKeyQueryService } from './integration-key-query.service';
import type { CreatedIntegrationKey } from './integration-key.view';
import { IntegrationKeysApiDocs } from './integration-keys.api-docs';

@IntegrationKeysApiDocs.controller
@RequireRole(INTEGRATIONS_ADMIN_ROLE)
@Controller('api/v1/integration-keys')
export class IntegrationKeysController {
  constructor(
    private readonly commands: IntegrationKeyCommandHandler,
    private readonly keys: IntegrationKeyQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @IntegrationKeysApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal): Promise<CreatedIntegrationKey> {
    return this.commands.create(parseCreateIntegrationKeyBody(body), admin);
  }

  @Get()
  @IntegrationKeysApiDocs.list
  list() {
    return this.keys.list();
  }

  @Get('events')
  @IntegrationKeysApiDocs.events
  events() {
    return this.keys.events();
  }

  @Delete(':id')
  @HttpCode(204)
  @IntegrationKeysApiDocs.revoke
  async revoke(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.revoke(id, admin);
  }
}
