import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { TimelineModule } from '../timeline/timeline.module';
import { AlertIngestion } from './alert-ingestion';
import { IntegrationsController } from './integrations.controller';

@Module({
  imports: [LedgerModule, TimelineModule],
  controllers: [IntegrationsController],
  providers: [AlertIngestion],
})
export class IntegrationsModule {}
