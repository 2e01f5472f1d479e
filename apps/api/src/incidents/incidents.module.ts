import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { IncidentCommandHandler } from './incident-command.handler';
import { IncidentQueryService } from './incident-query.service';
import { IncidentsController } from './incidents.controller';

@Module({
  imports: [LedgerModule],
  controllers: [IncidentsController],
  providers: [IncidentCommandHandler, IncidentQueryService],
  exports: [IncidentCommandHandler, IncidentQueryService],
})
export class IncidentsModule {}
