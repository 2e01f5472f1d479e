import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { ServicesApiDocs } from './oncall.api-docs';
import { OncallCommandHandler } from './oncall-command.handler';
import { OncallQueryService } from './oncall-query.service';
import { parseServiceBody } from './service.body';

/** Services: anyone signed in reads them, an `oncall.admin` changes them. */
@ServicesApiDocs.controller
@Controller('api/v1/services')
export class ServicesController {
  constructor(
    private readonly commands: OncallCommandHandler,
    private readonly oncall: OncallQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @ServicesApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.createService(parseServiceBody(body), admin);
  }

  @Get()
  @ServicesApiDocs.list
  async list() {
    return { items: await this.oncall.services() };
  }

  @Get(':id')
  @ServicesApiDocs.get
  get(@Param('id') id: string) {
    return this.oncall.service(id);
  }

  @Put(':id')
  @RequireRole(ONCALL_ADMIN_ROLE)
  @ServicesApiDocs.update
  update(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.updateService(id, parseServiceBody(body), admin);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @ServicesApiDocs.remove
  async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.deleteService(id, admin);
  }
}
