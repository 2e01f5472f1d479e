import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { apiDocs } from '../http/api-docs.decorators';

/** The OpenAPI declaration of the liveness route. */

const HEALTH_ANSWER = { type: 'object', properties: { status: { type: 'string', example: 'healthy' }, timestamp: { type: 'string', format: 'date-time' } } };

export const HealthApiDocs = {
  controller: apiDocs(ApiTags('health')),
  health: apiDocs(ApiOperation({ summary: 'Liveness' }), ApiResponse({ status: 200, description: 'healthy', schema: HEALTH_ANSWER })),
};
