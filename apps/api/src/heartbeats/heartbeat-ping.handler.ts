import { Inject, Injectable } from '@nestjs/common';
import { checkMayPing } from '@im/incidents';
import { INTEGRATION_KEY_QUERIES, type IntegrationKeyQueries } from '@im/read-models';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { heartbeatAlertEvent } from '@im/paging';
import { CLOCK, type Clock, CommandHandler, heartbeatPingWrites, ID_GENERATOR, type IdGenerator } from '@im/write-path';
import { TimelineAppendHandler } from '@im/timeline-append';
import { OncallQueryService } from '../oncall/oncall-query.service';
import type { HeartbeatView } from '../oncall/oncall.views';

/**
 * A ping: one event on the heartbeat's own stream, by the caller. When a
 * missed deadline's alert fires, the ping also records its resolution on
 * the incident it opened, through the alert write path, by system:heartbeat.
 */
@Injectable()
export class HeartbeatPings {
  constructor(
    private readonly commands: CommandHandler,
    private readonly oncall: OncallQueryService,
    private readonly alerts: TimelineAppendHandler,
    @Inject(INTEGRATION_KEY_QUERIES) private readonly keys: IntegrationKeyQueries,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  /** The heartbeat as it stands after the ping. */
  async ping(id: string, caller: Principal): Promise<HeartbeatView> {
    const heartbeat = await this.oncall.heartbeatRecord(id);
    const key = caller.integrationKey === undefined ? undefined : await this.keys.findById(caller.integrationKey);
    checkMayPing({ admin: caller.integrationKey === undefined && caller.roles.includes(ONCALL_ADMIN_ROLE), keyServiceId: key?.serviceId }, heartbeat);
    await this.commands.execute(heartbeatPingWrites, id, { kind: 'ping' }, { envelope: this.commands.serviceEnvelope(caller.sub) });
    if (heartbeat.firingSince !== null) {
      const now = this.clock.now().toISOString();
      await this.alerts.append(heartbeatAlertEvent('resolve', heartbeat, heartbeat.firingSince, this.ids.eventId(), now));
    }
    return this.oncall.heartbeat(id);
  }
}
