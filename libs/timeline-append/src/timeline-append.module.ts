import { Global, Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { ALERT_RECORDER, PagingModule } from '@im/paging';
import { TimelineAppendHandler } from './timeline-append.handler';

/**
 * The timeline and alert write path, one per process, and ALERT_RECORDER
 * bound to it: global, so that TimersModule's HeartbeatsDue (libs/paging,
 * which cannot import this library) finds it wherever the timers run, the
 * api or apps/projector. Needs the persistence ports and ProjectionsModule.
 */
@Global()
@Module({
  imports: [LedgerModule, PagingModule],
  providers: [TimelineAppendHandler, { provide: ALERT_RECORDER, useExisting: TimelineAppendHandler }],
  exports: [TimelineAppendHandler, ALERT_RECORDER],
})
export class TimelineAppendModule {}
