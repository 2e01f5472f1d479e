import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@im/config';
import { LedgerModule } from '@im/write-path';
import { TimelineAuthorizer } from '@im/access';
import { TimelineAppendModule } from '@im/timeline-append';
import { IncidentsModule } from '../incidents/incidents.module';
import { LedgerExports } from '../ledger-proof/ledger-exports';
import { LedgerProofModule } from '../ledger-proof/ledger-proof.module';
import { TimelineController } from './timeline.controller';
import { TimelineExports } from './timeline-export.service';
import { CURSOR_KEY, cursorKey, TimelineCursors } from './timeline-cursor';
import { TimelineReader } from './timeline-reader.service';

@Module({
  imports: [LedgerModule, IncidentsModule, LedgerProofModule, TimelineAppendModule],
  controllers: [TimelineController],
  providers: [
    TimelineReader,
    TimelineAuthorizer,
    TimelineCursors,
    LedgerExports,
    TimelineExports,
    { provide: CURSOR_KEY, inject: [APP_CONFIG], useFactory: cursorKey },
  ],
  exports: [TimelineReader, TimelineCursors, LedgerExports],
})
export class TimelineModule {}
