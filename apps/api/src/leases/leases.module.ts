import { Module } from '@nestjs/common';
import { LeasesController } from './leases.controller';

/** GET /api/v1/leases, read from the lease store (LEASE_STORE, bound by PersistenceModule). */
@Module({ controllers: [LeasesController] })
export class LeasesApiModule {}
