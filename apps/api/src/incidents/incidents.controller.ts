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
import type { Transition } from '@im/incidents';
import { ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/access.decorators';
import { ApiErrors, ref } from '../diagnostics/api-docs.decorators';
import type { Principal } from '../auth/principal';
import { IncidentCommandHandler } from './incident-command.handler';
import { IncidentQueryService } from './incident-query.service';
import { CreateIncidentDto, type IncidentResponse, toIncidentResponse } from './incident.dto';
import { nextPageLink, parseIncidentListQuery, type RawQuery } from './incident-list.query';

const BASE_PATH = '/api/v1/incidents';
const STATUS_ANSWER = (status: string) => ({ type: 'object', required: ['status'], properties: { status: { type: 'string', example: status } } });

@ApiTags('incidents')
@Controller('api/v1/incidents')
export class IncidentsController {
  constructor(
    private readonly commands: IncidentCommandHandler,
    private readonly incidents: IncidentQueryService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Declare an incident (open); answers with it and a Location header' })
  @ApiBody({ schema: ref('CreateIncident') })
  @ApiResponse({
    status: 201,
    description: 'The new incident',
    schema: ref('Incident'),
    headers: { Location: { description: 'The path of the new incident', schema: { type: 'string' } } },
  })
  @ApiErrors(400, 413, 415)
  async create(
    @Body() body: CreateIncidentDto,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse> {
    const incident = await this.commands.declare(body, { caller });
    void reply.header('location', `${BASE_PATH}/${incident.id}`);
    return this.read(incident.id, caller);
  }

  @Get()
  @ApiOperation({ summary: 'Incidents, newest first; Link rel="next" when more exist' })
  @ApiQuery({ name: 'status', required: false, type: String, description: 'Comma-separated: open, acknowledged, mitigated, resolved, closed' })
  @ApiQuery({ name: 'severity', required: false, type: String, description: 'Comma-separated: SEV-1 … SEV-4' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } })
  @ApiQuery({ name: 'cursor', required: false, type: String, description: 'From the Link header of the previous page' })
  @ApiResponse({
    status: 200,
    description: 'A page of incidents',
    schema: { type: 'array', items: ref('Incident') },
    headers: { Link: { description: 'The next page, as <path?query>; rel="next"; absent on the last page', schema: { type: 'string' } } },
  })
  @ApiErrors(400)
  async list(
    @Query() rawQuery: RawQuery,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IncidentResponse[]> {
    const query = parseIncidentListQuery(rawQuery);
    const { incidents, more } = await this.incidents.list(caller, query);
    if (more) void reply.header('link', nextPageLink(BASE_PATH, query, incidents[incidents.length - 1]));
    return incidents.map(toIncidentResponse);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One incident' })
  @ApiResponse({ status: 200, description: 'The incident', schema: ref('Incident') })
  @ApiErrors(404)
  get(@Param('id') id: string, @CurrentPrincipal() caller: Principal): Promise<IncidentResponse> {
    return this.read(id, caller);
  }

  @Post(':id/ack')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ack (lifecycle table in docs/api.md); a repeat is 200 with no change' })
  @ApiResponse({ status: 200, description: 'The status now', schema: STATUS_ANSWER('acknowledged') })
  @ApiErrors(404, 409)
  ack(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'ack', caller);
  }

  @Post(':id/mitigate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mitigate (lifecycle table in docs/api.md); a repeat is 200 with no change' })
  @ApiResponse({ status: 200, description: 'The status now', schema: STATUS_ANSWER('mitigated') })
  @ApiErrors(404, 409)
  mitigate(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'mitigate', caller);
  }

  @Post(':id/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resolve (lifecycle table in docs/api.md); a repeat is 200 with no change' })
  @ApiResponse({ status: 200, description: 'The status now', schema: STATUS_ANSWER('resolved') })
  @ApiErrors(404, 409)
  resolve(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'resolve', caller);
  }

  @Post(':id/close')
  @HttpCode(200)
  @ApiOperation({ summary: 'Close (lifecycle table in docs/api.md); a repeat is 200 with no change' })
  @ApiResponse({ status: 200, description: 'The status now', schema: STATUS_ANSWER('closed') })
  @ApiErrors(404, 409)
  close(@Param('id') id: string, @CurrentPrincipal() caller: Principal) {
    return this.move(id, 'close', caller);
  }

  private async move(id: string, transition: Transition, caller: Principal): Promise<{ status: string }> {
    const incident = await this.commands.transition(id, transition, { caller });
    return { status: incident.status };
  }

  private async read(id: string, caller: Principal): Promise<IncidentResponse> {
    return toIncidentResponse(await this.incidents.get(caller, id));
  }
}
