import { Module } from '@nestjs/common';
import { PagingPlans } from './paging-plans';
import { ServiceAssignments } from './service-assignments';

/** What the edges page and open incidents with: a policy's targets now, and the service an opening belongs to. Needs the persistence ports. */
@Module({
  providers: [PagingPlans, ServiceAssignments],
  exports: [PagingPlans, ServiceAssignments],
})
export class PagingModule {}
