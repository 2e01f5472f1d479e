import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { IncidentQueryService } from '@im/access';
import { PagingModule } from '@im/paging';
import { IncidentCommandHandler } from './incident-command.handler';
import { IncidentsController } from './incidents.controller';
import { OncallModule } from '../oncall/oncall.module';

@Module({
  imports: [LedgerModule, PagingModule, OncallModule],
  controllers: [IncidentsController],
  providers: [IncidentCommandHandler, IncidentQueryService],
  exports: [IncidentCommandHandler, IncidentQueryService],
})
export class IncidentsModule {}
