import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { TimelineAppendModule } from '@im/timeline-append';
import { AlertIngestion } from './alert-ingestion';
import { IntegrationsController } from './integrations.controller';

@Module({
  imports: [LedgerModule, TimelineAppendModule],
  controllers: [IntegrationsController],
  providers: [AlertIngestion],
})
export class IntegrationsModule {}
