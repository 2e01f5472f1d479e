import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { CLOCK, type Clock } from '@im/write-path';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { SchedulesApiDocs } from './oncall.api-docs';
import { OncallCommandHandler } from './oncall-command.handler';
import { OncallQueryService } from './oncall-query.service';
import { parseOverrideBody } from './override.body';
import { parseScheduleBody } from './schedule.body';
import { parseOnCallQuery, parseShiftsQuery } from './schedule-window.query';

/**
 * Schedules and who is on call: anyone signed in reads them, an
 * `oncall.admin` changes them; anyone may take or drop an override of their
 * own (the domain decides who may, so those routes need no role).
 */
@SchedulesApiDocs.controller
@Controller('api/v1/schedules')
export class SchedulesController {
  constructor(
    private readonly commands: OncallCommandHandler,
    private readonly oncall: OncallQueryService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @SchedulesApiDocs.create
  create(@Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.createSchedule(parseScheduleBody(body), admin);
  }

  @Get()
  @SchedulesApiDocs.list
  async list() {
    return { items: await this.oncall.schedules() };
  }

  @Get(':id')
  @SchedulesApiDocs.get
  get(@Param('id') id: string) {
    return this.oncall.schedule(id);
  }

  @Put(':id')
  @RequireRole(ONCALL_ADMIN_ROLE)
  @SchedulesApiDocs.update
  update(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() admin: Principal) {
    return this.commands.updateSchedule(id, parseScheduleBody(body), admin);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireRole(ONCALL_ADMIN_ROLE)
  @SchedulesApiDocs.remove
  async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.commands.deleteSchedule(id, admin);
  }

  @Post(':id/overrides')
  @HttpCode(201)
  @SchedulesApiDocs.createOverride
  createOverride(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() caller: Principal) {
    return this.commands.createOverride(id, parseOverrideBody(body), caller);
  }

  @Delete(':id/overrides/:override_id')
  @HttpCode(204)
  @SchedulesApiDocs.removeOverride
  async removeOverride(@Param('id') id: string, @Param('override_id') overrideId: string, @CurrentPrincipal() caller: Principal): Promise<void> {
    await this.commands.deleteOverride(id, overrideId, caller);
  }

  @Get(':id/oncall')
  @SchedulesApiDocs.onCall
  onCall(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.oncall.onCall(id, parseOnCallQuery(query, this.clock.now().getTime()));
  }

  @Get(':id/shifts')
  @SchedulesApiDocs.shifts
  shifts(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return this.oncall.shifts(id, parseShiftsQuery(query, this.clock.now().getTime()));
  }
}
