import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Post, Query } from '@nestjs/common';
import type { Principal } from '@im/access';
import { CurrentPrincipal, Public } from '../auth/access.decorators';
import { DiagnosticsApiDocs } from './diagnostics.api-docs';
import { OpenApiDocument } from './openapi.document';
import { publishedSchemaDocument } from './published-schemas';
import { parseSchemaQuery } from './schema.query';
import { parseSelfTest } from './self-test.query';
import { parseSimulationBody } from './simulation.body';
import { type SimulationReport, SimulationService } from './simulation.service';
import { type ValidationReport, ValidationService } from './validation.service';

const UNIMPLEMENTED = [
  'realtime/stats',
  'correlation/groups',
  'correlation/stats',
  'sla/status/:id',
  'sla/metrics',
  'metrics/incidents',
  'metrics/teams',
  'metrics/services/:service/reliability',
  'connectors',
];

@DiagnosticsApiDocs.controller
@Controller('api/v1')
export class DiagnosticsController {
  constructor(
    private readonly validation: ValidationService,
    private readonly simulation: SimulationService,
    @Inject(OpenApiDocument) private readonly openApi: OpenApiDocument,
  ) {}

  @Get('validate')
  @DiagnosticsApiDocs.validate
  validate(@CurrentPrincipal() caller: Principal, @Query('self_test') selfTestParam?: unknown): Promise<ValidationReport> {
    return this.validation.validate(parseSelfTest(selfTestParam), caller);
  }

  @Post('simulate')
  @HttpCode(200)
  @DiagnosticsApiDocs.simulate
  simulate(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<SimulationReport> {
    return this.simulation.simulate(parseSimulationBody(body), caller);
  }

  @Get('schema')
  @DiagnosticsApiDocs.schema
  schema(@Query('type') type?: unknown, @Query('format') format?: unknown): unknown {
    return publishedSchemaDocument(parseSchemaQuery(type, format), this.openApi.document?.info.version ?? '');
  }

  @Get('openapi.json')
  @DiagnosticsApiDocs.openapi
  openapi(): unknown {
    return this.openApi.document;
  }

  @Get(UNIMPLEMENTED)
  @Public()
  @DiagnosticsApiDocs.unimplemented
  unimplemented(): never {
    throw new NotFoundException('This endpoint is not available in this version');
  }
}
