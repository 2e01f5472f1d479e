import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/access.decorators';
import { HealthApiDocs } from './health.api-docs';

@Public()
@HealthApiDocs.controller
@Controller('health')
export class HealthController {
  /** Liveness: the process answers. Deeper checks are GET /api/v1/validate. */
  @Get()
  @HealthApiDocs.health
  health() {
    return { status: 'healthy', timestamp: new Date().toISOString() };
  }
}
