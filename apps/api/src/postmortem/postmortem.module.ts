import { Module } from '@nestjs/common';
import { IncidentsModule } from '../incidents/incidents.module';
import { OncallModule } from '../oncall/oncall.module';
import { TimelineModule } from '../timeline/timeline.module';
import { PostmortemController } from './postmortem.controller';
import { PostmortemDrafts } from './postmortem-drafts.service';

/** Postmortem drafts, read through the timeline module's ledger exports. */
@Module({
  imports: [TimelineModule, IncidentsModule, OncallModule],
  controllers: [PostmortemController],
  providers: [PostmortemDrafts],
})
export class PostmortemModule {}
