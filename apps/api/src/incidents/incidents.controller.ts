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
import type { Transition } from '@im/incidents';
import { READ_STORE, type ReadStore } from '@im/read-models';
import { CurrentPrincipal } from '../auth/access.decorators';
import type { Principal } from '../auth/principal';
import { IncidentVisibility } from '../policy/incident-visibility';
import { IncidentCommandHandler } from './incident-command.handler';
import { parseCreateIncidentBody } from './create-incident.body';
import { type IncidentResponse, toIncidentResponse } from './incident.dto';
import { IncidentsApiDocs } from './incidents.api-docs';
import { nextPageLink, parseIncidentListQuery, type RawQuery } from './incident-list.query';

const BASE_PATH = '/api/v1/incidents';

@IncidentsApiDocs.controller
@Controller('api/v1/incidents')
export class IncidentsController {
  constructor(
    private readonly commands: IncidentCommandHandler,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly visibility: IncidentVisibility,
  ) {}

  @Post()
  @HttpCode(201)
  @IncidentsApiDocs.create
  async create(
    @Body() body: unknown,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse> {
    const incident = await this.commands.declare(parseCreateIncidentBody(body), { caller });
    void reply.header('location', `${BASE_PATH}/${incident.id}`);
    return this.read(incident.id, caller);
  }

  @Get()
  @IncidentsApiDocs.list
  async list(
    @Query() rawQuery: RawQuery,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse[]> {
    const query = { ...parseIncidentListQuery(rawQuery), visibleLevels: this.visibility.levelsFor(caller) };
    // One extra row tells whether a next page exists.
    const rows = await this.readStore.incidents.list({ ...query, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    if (rows.length > query.limit) void reply.header('link', nextPageLink(BASE_PATH, query, page[page.length - 1]));
    return page.map(toIncidentResponse);
  }

  @Get(':id')
  @IncidentsApiDocs.get
  get(@Param('id') id: string, @CurrentPrincipal() caller: Principal): Promise<IncidentResponse> {
    return this.read(id, caller);
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

  private async move(id: string, transition: Transition, caller: Principal): Promise<{ status: string }> {
    const incident = await this.commands.transition(id, transition, { caller });
    return { status: incident.status };
  }

  private async read(id: string, caller: Principal): Promise<IncidentResponse> {
    return toIncidentResponse(this.visibility.reveal(caller, id, await this.readStore.incidents.findById(id)));
  }
}
