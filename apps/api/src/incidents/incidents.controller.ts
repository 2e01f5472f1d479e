import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Incident, Transition } from '@im/incidents';
import { IncidentQueryService, IncidentVisibility, type Principal } from '@im/access';
import { CurrentPrincipal } from '../auth/access.decorators';
import { IncidentCommandHandler } from './incident-command.handler';
import { parseCreateIncidentBody } from './create-incident.body';
import { parseDuplicateIncidentBody } from './duplicate-incident.body';
import { type IncidentResponse, toIncidentResponse, withService } from './incident.dto';
import { IncidentsApiDocs } from './incidents.api-docs';
import { OncallQueryService } from '../oncall/oncall-query.service';
import { nextPageLink, parseIncidentListQuery, type RawQuery } from './incident-list.query';

const BASE_PATH = '/api/v1/incidents';

@IncidentsApiDocs.controller
@Controller('api/v1/incidents')
export class IncidentsController {
  constructor(
    private readonly commands: IncidentCommandHandler,
    private readonly incidents: IncidentQueryService,
    private readonly visibility: IncidentVisibility,
    private readonly oncall: OncallQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @IncidentsApiDocs.create
  async create(
    @Body() body: unknown,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse> {
    const { input, attributes } = parseCreateIncidentBody(body, caller, this.visibility.levelsFor(caller));
    const incident = await this.commands.declare(input, { caller, attributes });
    void reply.header('location', `${BASE_PATH}/${incident.id}`);
    return this.shown(incident);
  }

  @Get()
  @IncidentsApiDocs.list
  async list(
    @Query() rawQuery: RawQuery,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse[]> {
    const query = parseIncidentListQuery(rawQuery);
    const { incidents, more } = await this.incidents.list(caller, query);
    if (more) void reply.header('link', nextPageLink(BASE_PATH, query, incidents[incidents.length - 1]));
    const services = await this.oncall.servicesOf(incidents);
    return incidents.map((incident, i) => withService(toIncidentResponse(incident), services[i]));
  }

  @Get(':id')
  @IncidentsApiDocs.get
  async get(@Param('id') id: string, @CurrentPrincipal() caller: Principal): Promise<IncidentResponse> {
    return this.shown(await this.incidents.get(caller, id));
  }

  @Post(':id/ack')
  @HttpCode(200)
  @IncidentsApiDocs.ack
  ack(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'ack', caller);
  }

  @Post(':id/mitigate')
  @HttpCode(200)
  @IncidentsApiDocs.mitigate
  mitigate(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'mitigate', caller);
  }

  @Post(':id/resolve')
  @HttpCode(200)
  @IncidentsApiDocs.resolve
  resolve(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'resolve', caller);
  }

  @Post(':id/close')
  @HttpCode(200)
  @IncidentsApiDocs.close
  close(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'close', caller);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @IncidentsApiDocs.cancel
  cancel(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'cancel', caller);
  }

  @Post(':id/duplicate')
  @HttpCode(200)
  @IncidentsApiDocs.duplicate
  async duplicate(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<{ status: string; duplicate_of: string | null }> {
    const { of } = parseDuplicateIncidentBody(body);
    const incident = await this.commands.markDuplicate(id, of, { caller });
    return { status: incident.status, duplicate_of: incident.duplicateOf ?? null };
  }

  /** Pages the next step of the incident's escalation policy now (reason manual), while it is open or acknowledged. */
  @Post(':id/escalate')
  @HttpCode(200)
  @IncidentsApiDocs.escalate
  async escalate(@Param('id') id: string, @CurrentPrincipal() caller: Principal): Promise<IncidentResponse> {
    return this.shown(await this.commands.escalate(id, { caller }));
  }

  private async shown(incident: Incident): Promise<IncidentResponse> {
    const [service] = await this.oncall.servicesOf([incident]);
    return withService(toIncidentResponse(incident), service);
  }

  private async move(id: string, transition: Transition, caller: Principal): Promise<{ status: string }> {
    const incident = await this.commands.transition(id, transition, { caller });
    return { status: incident.status };
  }
}
