import { Controller, Get } from '@nestjs/common';

@Controller('health')
export class HealthController {
  /** Liveness: the process answers. Deeper checks are GET /api/v1/validate. */
  @Get()
  health() {
    return { status: 'healthy', timestamp: new Date().toISOString() };
  }
}
