import { Global, Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { ALERT_RECORDER } from '@im/paging';
import { OncallModule } from '../oncall/oncall.module';
import { TimelineAppendHandler } from '../timeline/timeline-append.handler';
import { TimelineModule } from '../timeline/timeline.module';
import { HeartbeatPingsController } from './heartbeat-pings.controller';
import { HeartbeatPings } from './heartbeat-ping.handler';

/**
 * Pings, and the alert write path the timers record a missed heartbeat
 * through (ALERT_RECORDER, global so that TimersModule's HeartbeatsDue finds it).
 */
@Global()
@Module({
  imports: [LedgerModule, OncallModule, TimelineModule],
  controllers: [HeartbeatPingsController],
  providers: [HeartbeatPings, { provide: ALERT_RECORDER, useExisting: TimelineAppendHandler }],
  exports: [ALERT_RECORDER],
})
export class HeartbeatPingsModule {}
