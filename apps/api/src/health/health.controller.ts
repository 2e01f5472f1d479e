import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/access.decorators';

@Public()
@Controller('health')
export class HealthController {
  /** Liveness: the process answers. Deeper checks are GET /api/v1/validate. */
  @Get()
  health() {
    return { status: 'healthy', timestamp: new Date().toISOString() };
  }
}
