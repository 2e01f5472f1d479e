import { Module } from '@nestjs/common';
import { ProjectionsModule } from '@im/persistence';
import { IncidentStreamWriter } from './incident-stream.writer';

/** The write path shared by REST commands, timeline appends and (later) GraphQL mutations. */
@Module({
  imports: [ProjectionsModule],
  providers: [IncidentStreamWriter],
  exports: [IncidentStreamWriter, ProjectionsModule],
})
export class LedgerModule {}
