import { Controller, Get, Inject } from '@nestjs/common';
import { LEASE_STORE, type LeaseStore, outboundLease, PROJECTIONS_LEASE, TIMERS_LEASE } from '@im/read-models';
import { NOTIFICATION_CHANNEL, WEBHOOK_CHANNEL } from '@im/outbound';
import { LeasesApiDocs } from './leases.api-docs';
import { leaseViews, type LeaseView } from './leases.view';

/** The leases there are, in the order the listing shows them. */
const LEASES = [PROJECTIONS_LEASE, outboundLease(WEBHOOK_CHANNEL), outboundLease(NOTIFICATION_CHANNEL), TIMERS_LEASE];

/** GET /api/v1/leases: which process runs what (docs/api.md, "Leases"); any authenticated caller. */
@LeasesApiDocs.controller
@Controller('api/v1/leases')
export class LeasesController {
  constructor(@Inject(LEASE_STORE) private readonly store: LeaseStore) {}

  @Get()
  @LeasesApiDocs.list
  async list(): Promise<{ leases: LeaseView[] }> {
    return { leases: leaseViews(LEASES, await this.store.list()) };
  }
}
