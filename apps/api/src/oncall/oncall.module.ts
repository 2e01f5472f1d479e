import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { EscalationPoliciesController } from './escalation-policies.controller';
import { HeartbeatsController } from './heartbeats.controller';
import { OncallCommandHandler } from './oncall-command.handler';
import { OncallQueryService } from './oncall-query.service';
import { SchedulesController } from './schedules.controller';
import { ServicesController } from './services.controller';

@Module({
  imports: [LedgerModule],
  controllers: [ServicesController, EscalationPoliciesController, SchedulesController, HeartbeatsController],
  providers: [OncallCommandHandler, OncallQueryService],
  exports: [OncallQueryService],
})
export class OncallModule {}
