import { BadRequestException, Body, Controller, Get, HttpCode, Inject, NotFoundException, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Public } from '../auth/access.decorators';
import { demandRole } from '../auth/auth.guard';
import { type Principal, TIMELINE_ROLES } from '../auth/principal';
import { ApiErrors } from './api-docs.decorators';
import { OpenApiDocument } from './openapi.document';
import { openApiComponents, PUBLISHED_SCHEMAS } from './published-schemas';
import { MAX_SIMULATED_EVENTS, type SimulationReport, SimulationService } from './simulation.service';
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

const TEXT = { type: 'string' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;
const object = (properties: Record<string, object>, extra: object = {}) => ({ type: 'object', required: Object.keys(properties), properties, ...extra });

const VALIDATION_REPORT = object({
  timestamp: { type: 'string', format: 'date-time' },
  version: TEXT,
  capabilities: object(Object.fromEntries(['database', 'timeline', 'websocket', 'sse', 'graphql'].map((c) => [c, { type: 'boolean' }]))),
  results: {
    type: 'array',
    items: object({ component: TEXT, check: TEXT, status: { type: 'string', enum: ['pass', 'fail', 'warn'] }, message: TEXT, duration: { type: 'string', example: '1.25ms' } }),
  },
  summary: object({ total: COUNT, passed: COUNT, failed: COUNT, warned: COUNT }),
});

const SIMULATION_REQUEST = {
  type: 'object',
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      maxItems: MAX_SIMULATED_EVENTS,
      // Not the CloudEvent schema: an event that fails validation is reported in errors, not refused, and legacy types (incident.trigger) are accepted.
      items: { type: 'object', additionalProperties: true, description: 'A CloudEvent (see the CloudEvent schema)' },
    },
    dry_run: { type: 'boolean', default: true },
  },
};

const SIMULATION_REPORT = object({
  timestamp: { type: 'string', format: 'date-time' },
  dry_run: { type: 'boolean' },
  events_read: COUNT,
  events_created: {
    type: 'array',
    items: object({ id: TEXT, type: TEXT, source: TEXT, subject: TEXT, time: TEXT, would_create: { type: 'string', enum: ['incident', 'timeline_event', 'nothing'] } }),
  },
  errors: {
    type: 'array',
    items: { type: 'object', required: ['index', 'error'], properties: { index: COUNT, id: TEXT, error: TEXT } },
  },
});

/** Any JSON object: an OpenAPI document or a JSON Schema. */
const JSON_DOCUMENT = { type: 'object', additionalProperties: true } as const;

@ApiTags('diagnostics')
@Controller('api/v1')
export class DiagnosticsController {
  constructor(
    private readonly validation: ValidationService,
    private readonly simulation: SimulationService,
    @Inject(OpenApiDocument) private readonly openApi: OpenApiDocument,
  ) {}

  @Get('validate')
  @ApiOperation({
    summary: 'Checks every part of the deployment, each timed; self_test=true adds a write-project-read round trip (it appends a probe event, so it needs timeline.writer)',
  })
  @ApiQuery({ name: 'self_test', required: false, enum: ['true', 'false'] })
  @ApiResponse({ status: 200, description: 'The report; failing checks are listed with status "fail"', schema: VALIDATION_REPORT })
  @ApiErrors(400, 401, 403)
  validate(@CurrentPrincipal() caller: Principal, @Query('self_test') selfTest?: string): Promise<ValidationReport> {
    if (selfTest !== undefined && selfTest !== 'true' && selfTest !== 'false') throw new BadRequestException('self_test must be true or false');
    if (selfTest === 'true') demandRole(caller, TIMELINE_ROLES.writer);
    return this.validation.validate(selfTest === 'true');
  }

  @Post('simulate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Runs events through validation and the decider against the stored state the caller could read (duplicates and fingerprint joins: timeline.reader, as the policy shows them); writes nothing',
  })
  @ApiBody({ schema: SIMULATION_REQUEST })
  @ApiResponse({ status: 200, description: 'What each event would do; invalid events are listed in errors with their index', schema: SIMULATION_REPORT })
  @ApiErrors(400, 413, 415, 503)
  simulate(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<SimulationReport> {
    return this.simulation.simulate(body, caller);
  }

  @Get('schema')
  @ApiOperation({ summary: 'The JSON Schemas the service validates with, as JSON Schema or OpenAPI components' })
  @ApiQuery({ name: 'type', required: false, enum: Object.keys(PUBLISHED_SCHEMAS), description: 'Default incident' })
  @ApiQuery({ name: 'format', required: false, enum: ['openapi', 'jsonschema'], description: 'Default openapi' })
  @ApiResponse({ status: 200, description: 'An OpenAPI 3.0 document with the schemas as components, or the JSON Schema (draft 2020-12)', schema: JSON_DOCUMENT })
  @ApiErrors(400)
  schema(@Query('type') type = 'incident', @Query('format') format = 'openapi'): unknown {
    if (!(type in PUBLISHED_SCHEMAS)) throw new BadRequestException(`type must be one of ${Object.keys(PUBLISHED_SCHEMAS).join(', ')}`);
    if (format === 'jsonschema') {
      const schemas = PUBLISHED_SCHEMAS[type];
      const names = Object.keys(schemas);
      return names.length === 1 ? schemas[names[0]] : { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: schemas };
    }
    if (format !== 'openapi') throw new BadRequestException('format must be openapi or jsonschema');
    return { openapi: '3.0.3', info: { title: `Incident service: ${type} schemas`, version: this.openApi.document?.info.version ?? '' }, paths: {}, components: { schemas: openApiComponents([type]) } };
  }

  @Get('openapi.json')
  @ApiOperation({ summary: 'This OpenAPI 3.0 document' })
  @ApiResponse({ status: 200, description: 'The document', schema: JSON_DOCUMENT })
  openapi(): unknown {
    return this.openApi.document;
  }

  @Get(UNIMPLEMENTED)
  @Public()
  @ApiErrors(404)
  @ApiOperation({ summary: 'Planned in interface.md, not offered in this version: answers 404 by contract', deprecated: true })
  unimplemented(): never {
    throw new NotFoundException('This endpoint is not available in this version');
  }
}
