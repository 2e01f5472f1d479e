import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';

const NULLABLE_TIME = { type: 'string', format: 'date-time', nullable: true } as const;

const LEASES = {
  type: 'object',
  required: ['leases'],
  properties: {
    leases: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'holder', 'since', 'expires_at', 'generation'],
        properties: {
          name: { type: 'string', example: 'projections' },
          holder: {
            type: 'object',
            nullable: true,
            required: ['pid', 'host', 'kind'],
            properties: { pid: { type: 'integer' }, host: { type: 'string' }, kind: { type: 'string', enum: ['api', 'projector'] } },
          },
          since: NULLABLE_TIME,
          expires_at: NULLABLE_TIME,
          generation: { type: 'integer', minimum: 0, description: 'Grows by one at every change of holder (the fencing token)' },
        },
      },
    },
  },
};

/** The OpenAPI declaration of the leases route; the controller only routes. */
export const LeasesApiDocs = {
  controller: apiDocs(ApiTags('diagnostics')),
  list: apiDocs(
    ApiOperation({ summary: 'Who runs the projections, each outbound channel and the timers now: one process each, holding its lease (any authenticated caller)' }),
    ApiResponse({ status: 200, description: 'One entry per lease; holder null while none holds it', schema: LEASES }),
    ApiErrors(503),
  ),
};
