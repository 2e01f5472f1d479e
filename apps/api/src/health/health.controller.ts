import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators';

@Public()
@ApiTags('health')
@Controller('health')
export class HealthController {
  /** Liveness: the process answers. Deeper checks are GET /api/v1/validate. */
  @Get()
  @ApiOperation({ summary: 'Liveness' })
  @ApiResponse({ status: 200, description: 'healthy', schema: { type: 'object', properties: { status: { type: 'string', example: 'healthy' }, timestamp: { type: 'string', format: 'date-time' } } } })
  health() {
    return { status: 'healthy', timestamp: new Date().toISOString() };
  }
}
