import { Controller, Get } from '@nestjs/common';
import type { LedgerJwk } from '@im/ledger-proof';
import { Public } from '../auth/access.decorators';
import { LedgerApiDocs } from './ledger.api-docs';
import { LedgerKeys } from './ledger-keys';

@Public()
@LedgerApiDocs.controller
@Controller('api/v1/ledger')
export class LedgerController {
  constructor(private readonly keys: LedgerKeys) {}

  /** The keys ledger heads are signed with, current and retired: what an auditor pins. */
  @Get('keys')
  @LedgerApiDocs.keys
  keysSet(): { keys: LedgerJwk[] } {
    return { keys: this.keys.published() };
  }
}
