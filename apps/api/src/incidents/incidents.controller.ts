import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Res,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { incidentNotFound, type Transition } from '@im/incidents';
import { READ_STORE, type ReadStore } from '@im/read-models';
import { CurrentPrincipal } from '../auth/access.decorators';
import type { Principal } from '../auth/principal';
import { IncidentCommandHandler } from './incident-command.handler';
import { CreateIncidentDto, type IncidentResponse, toIncidentResponse } from './incident.dto';
import { nextPageLink, parseIncidentListQuery, type RawQuery } from './incident-list.query';

const BASE_PATH = '/api/v1/incidents';

@Controller('api/v1/incidents')
export class IncidentsController {
  constructor(
    private readonly commands: IncidentCommandHandler,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @Body() body: CreateIncidentDto,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse> {
    const incident = await this.commands.declare(body, { actor: caller.sub });
    void reply.header('location', `${BASE_PATH}/${incident.id}`);
    return this.read(incident.id);
  }

  @Get()
  async list(@Query() rawQuery: RawQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<IncidentResponse[]> {
    const query = parseIncidentListQuery(rawQuery);
    // One extra row tells whether a next page exists.
    const rows = await this.readStore.incidents.list({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    if (rows.length > query.limit) void reply.header('link', nextPageLink(BASE_PATH, query, page[page.length - 1]));
    return page.map(toIncidentResponse);
  }

  @Get(':id')
  get(@Param('id') id: string): Promise<IncidentResponse> {
    return this.read(id);
  }

  @Post(':id/ack')
  @HttpCode(200)
  ack(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'ack', caller);
  }

  @Post(':id/mitigate')
  @HttpCode(200)
  mitigate(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'mitigate', caller);
  }

  @Post(':id/resolve')
  @HttpCode(200)
  resolve(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'resolve', caller);
  }

  @Post(':id/close')
  @HttpCode(200)
  close(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'close', caller);
  }

  private async move(id: string, transition: Transition, caller: Principal): Promise<{ status: string }> {
    const incident = await this.commands.transition(id, transition, { actor: caller.sub });
    return { status: incident.status };
  }

  private async read(id: string): Promise<IncidentResponse> {
    const incident = await this.readStore.incidents.findById(id);
    if (!incident) throw incidentNotFound(id);
    return toIncidentResponse(incident);
  }
}
