import { Controller, Get, Inject } from '@nestjs/common';
import { LEASE_STORE, type LeaseStore } from '@im/read-models';
import { Authenticated } from '../auth/access.decorators';
import { LeasesApiDocs } from './leases.api-docs';
import { LEASE_NAMES, leaseViews, type LeaseView } from './leases.view';

/** GET /api/v1/leases: which process runs what (docs/api.md, "Leases"); any authenticated caller. */
@LeasesApiDocs.controller
@Authenticated()
@Controller('api/v1/leases')
export class LeasesController {
  constructor(@Inject(LEASE_STORE) private readonly store: LeaseStore) {}

  @Get()
  @LeasesApiDocs.list
  async list(): Promise<{ leases: LeaseView[] }> {
    return { leases: leaseViews(LEASE_NAMES, await this.store.list()) };
  }
}
