import { Module } from '@nestjs/common';
import { LedgerModule } from '@im/write-path';
import { IntegrationKeyCommandHandler } from './integration-key-command.handler';
import { IntegrationKeyQueryService } from './integration-key-query.service';
import { IntegrationKeysController } from './integration-keys.controller';

@Module({
  imports: [LedgerModule],
  controllers: [IntegrationKeysController],
  providers: [IntegrationKeyCommandHandler, IntegrationKeyQueryService],
})
export class IntegrationKeysModule {}
