import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { TimelineAppendModule } from '@im/timeline-append';
import { OncallModule } from '../oncall/oncall.module';
import { HeartbeatPingsController } from './heartbeat-pings.controller';
import { HeartbeatPings } from './heartbeat-ping.handler';

/** Pings; a ping that ends a miss records its alert's resolution through the alert write path. */
@Module({
  imports: [LedgerModule, OncallModule, TimelineAppendModule],
  controllers: [HeartbeatPingsController],
  providers: [HeartbeatPings],
})
export class HeartbeatPingsModule {}
