import { Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { OncallQueryService } from '../oncall/oncall-query.service';
import { Service } from './oncall.types';
import { Incident, IncidentMobileView } from './schema.types';

/** `service` of an incident, in either view: the one it belongs to (fixed when it opened); null for none, or one deleted since. */
async function serviceOf(oncall: OncallQueryService, serviceId: string | null | undefined): Promise<Service | null> {
  if (!serviceId) return null;
  const service = await oncall.serviceRecord(serviceId);
  return service ? { id: service.id, name: service.name, description: service.description, escalationPolicyId: service.escalationPolicyId } : null;
}

@Resolver(() => Incident)
export class IncidentServiceFields {
  constructor(private readonly oncall: OncallQueryService) {}

  @ResolveField(() => Service, { nullable: true, description: 'The service it belongs to, fixed when it opened; null for none' })
  service(@Parent() incident: Incident): Promise<Service | null> {
    return serviceOf(this.oncall, incident.serviceId);
  }
}

@Resolver(() => IncidentMobileView)
export class MobileViewServiceFields {
  constructor(private readonly oncall: OncallQueryService) {}

  @ResolveField(() => Service, { nullable: true, description: 'The service it belongs to, fixed when it opened; null for none' })
  service(@Parent() view: IncidentMobileView): Promise<Service | null> {
    return serviceOf(this.oncall, view.serviceId);
  }
}
