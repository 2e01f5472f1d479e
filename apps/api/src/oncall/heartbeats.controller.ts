import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { parseHeartbeatBody } from './heartbeat.body';
import { HeartbeatsApiDocs } from './oncall.api-docs';
import { OncallCommandHandler } from './oncall-command.handler';
import { OncallQueryService } from './oncall-query.service';

/** Heartbeats: anyone signed in reads them, an `oncall.admin` creates and deletes them (pings: heartbeats/heartbeat-pings.controller.ts). */
@HeartbeatsApiDocs.controller
@Controller('api/v1/heartbeats')
export class HeartbeatsController {
  constructor(
    private readonly commands: OncallCommandHandler,
    private readonly oncall: OncallQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @HeartbeatsApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.createHeartbeat(parseHeartbeatBody(body), admin);
  }

  @Get()
  @HeartbeatsApiDocs.list
  async list() {
    return { items: await this.oncall.heartbeats() };
  }

  @Get(':id')
  @HeartbeatsApiDocs.get
  get(@Param('id') id: string) {
    return this.oncall.heartbeat(id);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @HeartbeatsApiDocs.remove
  async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.deleteHeartbeat(id, admin);
  }
}
