import { Module } from '@nestjs/common';
import { ProjectionsModule } from '@im/persistence';
import { IncidentCommandHandler } from './incident-command.handler';
import { IncidentsController } from './incidents.controller';

@Module({
  imports: [ProjectionsModule],
  controllers: [IncidentsController],
  providers: [IncidentCommandHandler],
  exports: [IncidentCommandHandler],
})
export class IncidentsModule {}
