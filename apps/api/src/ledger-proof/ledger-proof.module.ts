import { Module } from '@nestjs/common';
import { LedgerController } from './ledger.controller';
import { LedgerKeys } from './ledger-keys';
import { SignedHeads } from './signed-heads';

/** The verifiable ledger's keys and signed heads; its exports sit in the timeline module, beside the reader. */
@Module({
  controllers: [LedgerController],
  providers: [LedgerKeys, SignedHeads],
  exports: [LedgerKeys, SignedHeads],
})
export class LedgerProofModule {}
