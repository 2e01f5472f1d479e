import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { IncidentCommandHandler } from './incident-command.handler';
import { IncidentsController } from './incidents.controller';

@Module({
  imports: [LedgerModule],
  controllers: [IncidentsController],
  providers: [IncidentCommandHandler],
  exports: [IncidentCommandHandler],
})
export class IncidentsModule {}
