import { Module } from '@nestjs/common';
import { LedgerController } from './ledger.controller';
import { LedgerContinuity } from './ledger-continuity';
import { LedgerKeys } from './ledger-keys';
import { SignedHeads } from './signed-heads';

/** The verifiable ledger's keys and signed heads; its exports sit in the timeline module, beside the reader. */
@Module({
  controllers: [LedgerController],
  providers: [LedgerKeys, LedgerContinuity, SignedHeads],
  exports: [LedgerKeys, LedgerContinuity, SignedHeads],
})
export class LedgerProofModule {}
