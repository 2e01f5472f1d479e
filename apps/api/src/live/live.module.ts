import { Module } from '@nestjs/common';
import { IncidentsModule } from '../incidents/incidents.module';
import { LedgerModule } from '../ledger/ledger.module';
import { TimelineModule } from '../timeline/timeline.module';
import { LiveFeed } from './live-feed';

/** Live delivery: the ledger followed once per process, fanned out to SSE streams and GraphQL subscriptions. */
@Module({
  imports: [LedgerModule, IncidentsModule, TimelineModule],
  providers: [LiveFeed],
  exports: [LiveFeed],
})
export class LiveModule {}
