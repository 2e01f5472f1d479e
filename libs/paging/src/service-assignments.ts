import { Inject, Injectable } from '@nestjs/common';
import { assignedService, type ServiceAssignment } from '@im/incidents';
import { INTEGRATION_KEY_QUERIES, type IntegrationKeyQueries, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';

/** The sender an integration key's events record (`integration:<id>`). */
const KEY_SENDER = /^integration:(.+)$/;

/**
 * The service an opening incident belongs to, from the read models: the
 * sending integration key's service, else what the opening names (the
 * domain's assignedService decides which).
 */
@Injectable()
export class ServiceAssignments {
  constructor(
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    @Inject(INTEGRATION_KEY_QUERIES) private readonly keys: IntegrationKeyQueries,
  ) {}

  /** `sender`: who sent the opening event (im.sender; an integration key's is `integration:<id>`). */
  async forOpening(sender: string | undefined, data: Readonly<Record<string, unknown>> | undefined): Promise<ServiceAssignment | undefined> {
    const keyId = sender?.match(KEY_SENDER)?.[1];
    const key = keyId === undefined ? undefined : await this.keys.findById(keyId);
    const named = data ?? {};
    // Most openings name no service: no read of the services then.
    if (!key?.serviceId && named.service === undefined && named.services === undefined) return undefined;
    // The key's service comes first when it still exists: then it is the only one read.
    const keyService = key?.serviceId ? await this.oncall.services.findById(key.serviceId) : undefined;
    return assignedService(keyService ? [keyService] : await this.oncall.services.list(), { keyServiceId: key?.serviceId, data: named });
  }
}
