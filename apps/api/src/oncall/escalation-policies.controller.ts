import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { parseEscalationPolicyBody } from './escalation-policy.body';
import { EscalationPoliciesApiDocs } from './oncall.api-docs';
import { OncallCommandHandler } from './oncall-command.handler';
import { OncallQueryService } from './oncall-query.service';

/** Escalation policies (configuration only; paging is elsewhere): anyone signed in reads them, an `oncall.admin` changes them. */
@EscalationPoliciesApiDocs.controller
@Controller('api/v1/escalation-policies')
export class EscalationPoliciesController {
  constructor(
    private readonly commands: OncallCommandHandler,
    private readonly oncall: OncallQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @EscalationPoliciesApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.createEscalationPolicy(parseEscalationPolicyBody(body), admin);
  }

  @Get()
  @EscalationPoliciesApiDocs.list
  async list() {
    return { items: await this.oncall.escalationPolicies() };
  }

  @Get(':id')
  @EscalationPoliciesApiDocs.get
  get(@Param('id') id: string) {
    return this.oncall.escalationPolicy(id);
  }

  @Put(':id')
  @RequireRole(ONCALL_ADMIN_ROLE)
  @EscalationPoliciesApiDocs.update
  update(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.updateEscalationPolicy(id, parseEscalationPolicyBody(body), admin);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @EscalationPoliciesApiDocs.remove
  async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.deleteEscalationPolicy(id, admin);
  }
}
