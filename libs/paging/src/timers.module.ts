import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { EscalationsDue } from './escalations-due';
import { HeartbeatsDue } from './heartbeats-due';
import { PagingModule } from './paging.module';
import { TimerRunner } from './timer-runner';

/**
 * The durable timers (escalations): imported by the api, and by
 * apps/projector, which runs them when the api runs with PROJECTOR=external
 * (TimerRunner starts only where the projections run). Needs the persistence
 * ports and ProjectionsModule.
 */
@Module({
  imports: [LedgerModule, PagingModule],
  providers: [EscalationsDue, HeartbeatsDue, TimerRunner],
  exports: [TimerRunner],
})
export class TimersModule {}
