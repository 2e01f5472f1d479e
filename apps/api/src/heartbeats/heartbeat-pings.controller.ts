import { Body, Controller, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Principal } from '@im/access';
import { AcceptsIntegrationKey, CurrentPrincipal } from '../auth/access.decorators';
import { HeartbeatsApiDocs } from '../oncall/oncall.api-docs';
import { OncallQueryService } from '../oncall/oncall-query.service';
import { HeartbeatPings } from './heartbeat-ping.handler';
import { isPing } from './ping.body';

/** POST /api/v1/heartbeats/{id}/ping: an integration key of the heartbeat's service or an oncall.admin (the domain's checkMayPing). */
@HeartbeatsApiDocs.controller
@Controller('api/v1/heartbeats')
export class HeartbeatPingsController {
  constructor(
    private readonly pings: HeartbeatPings,
    private readonly oncall: OncallQueryService,
  ) {}

  @Post(':id/ping')
  @AcceptsIntegrationKey()
  @HeartbeatsApiDocs.ping
  async ping(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() caller: Principal, @Res({ passthrough: true }) reply: FastifyReply) {
    if (isPing(body)) {
      void reply.status(202);
      return this.pings.ping(id, caller);
    }
    void reply.status(200);
    return this.oncall.heartbeat(id);
  }
}
