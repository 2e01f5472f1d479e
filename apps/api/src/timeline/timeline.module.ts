import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module';
import { IncidentRouting } from './incident-routing';
import { TimelineAppendHandler } from './timeline-append.handler';
import { TimelineController } from './timeline.controller';
import { TimelineReader } from './timeline-reader.service';

@Module({
  imports: [LedgerModule],
  controllers: [TimelineController],
  providers: [TimelineAppendHandler, TimelineReader, IncidentRouting],
  exports: [TimelineReader, IncidentRouting],
})
export class TimelineModule {}
