import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError, ONCALL_STREAM, type OncallCommand, UNRESOLVED_STATUSES } from '@im/incidents';
import { INCIDENT_QUERIES, type IncidentQueries } from '@im/read-models';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { CommandHandler, ID_GENERATOR, type IdGenerator, oncallWrites } from '@im/write-path';
import type { EscalationPolicyInput } from './escalation-policy.body';
import type { HeartbeatInput } from './heartbeat.body';
import type { OverrideInput } from './override.body';
import type { ScheduleInput } from './schedule.body';
import type { ServiceInput } from './service.body';
import { OncallQueryService } from './oncall-query.service';
import type { OverrideView } from './oncall.views';

/**
 * Every change of the on-call configuration, as events of the one `oncall`
 * stream through the one write path. Each answers once the read models show
 * the change, with the piece as they show it.
 */
@Injectable()
export class OncallCommandHandler {
  constructor(
    private readonly commands: CommandHandler,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly queries: OncallQueryService,
    @Inject(INCIDENT_QUERIES) private readonly incidents: IncidentQueries,
  ) {}

  createService(input: ServiceInput, admin: Principal) {
    const id = this.ids.oncallId();
    return this.answered({ kind: 'create_service', service: { id, ...input } }, admin, () => this.queries.service(id));
  }

  updateService(id: string, input: ServiceInput, admin: Principal) {
    return this.answered({ kind: 'update_service', service: { id, ...input } }, admin, () => this.queries.service(id));
  }

  async deleteService(id: string, admin: Principal): Promise<void> {
    // Counted from the incident read model: an incident opening in the same instant may still be missed (docs/decisions.md).
    await this.decide({ kind: 'delete_service', id, openIncidents: await this.incidents.countOfService(id, UNRESOLVED_STATUSES) }, admin);
  }

  createEscalationPolicy(input: EscalationPolicyInput, admin: Principal) {
    const id = this.ids.oncallId();
    return this.answered({ kind: 'create_policy', policy: { id, ...input } }, admin, () => this.queries.escalationPolicy(id));
  }

  updateEscalationPolicy(id: string, input: EscalationPolicyInput, admin: Principal) {
    return this.answered({ kind: 'update_policy', policy: { id, ...input } }, admin, () => this.queries.escalationPolicy(id));
  }

  async deleteEscalationPolicy(id: string, admin: Principal): Promise<void> {
    await this.decide({ kind: 'delete_policy', id }, admin);
  }

  createSchedule(input: ScheduleInput, admin: Principal) {
    const id = this.ids.oncallId();
    return this.answered({ kind: 'create_schedule', schedule: { id, ...input } }, admin, () => this.queries.schedule(id));
  }

  updateSchedule(id: string, input: ScheduleInput, admin: Principal) {
    return this.answered({ kind: 'update_schedule', schedule: { id, ...input } }, admin, () => this.queries.schedule(id));
  }

  async deleteSchedule(id: string, admin: Principal): Promise<void> {
    await this.decide({ kind: 'delete_schedule', id }, admin);
  }

  /** By an `oncall.admin`, or by the override's own user (the domain decides which). */
  async createOverride(scheduleId: string, input: OverrideInput, caller: Principal): Promise<OverrideView> {
    const id = this.ids.oncallId();
    await this.decide({ kind: 'create_override', override: { schedule_id: scheduleId, id, ...input }, by: overrideCaller(caller) }, caller);
    const override = (await this.queries.schedule(scheduleId)).overrides.find((o) => o.id === id);
    // Only a deletion racing this answer can take it away again.
    if (!override) throw new NotFoundError(`Override ${id} of schedule ${scheduleId} not found`);
    return override;
  }

  async deleteOverride(scheduleId: string, id: string, caller: Principal): Promise<void> {
    await this.decide({ kind: 'delete_override', scheduleId, id, by: overrideCaller(caller) }, caller);
  }

  createHeartbeat(input: HeartbeatInput, admin: Principal) {
    const id = this.ids.oncallId();
    return this.answered({ kind: 'create_heartbeat', heartbeat: { id, ...input } }, admin, () => this.queries.heartbeat(id));
  }

  async deleteHeartbeat(id: string, admin: Principal): Promise<void> {
    await this.decide({ kind: 'delete_heartbeat', id }, admin);
  }

  /** Decides the command, then answers with the piece as the read models show it (they show the write by then). */
  private async answered<View>(command: OncallCommand, caller: Principal, view: () => Promise<View>): Promise<View> {
    await this.decide(command, caller);
    return view();
  }

  private decide(command: OncallCommand, caller: Principal) {
    return this.commands.execute(oncallWrites, ONCALL_STREAM, command, { envelope: this.commands.serviceEnvelope(caller.sub) });
  }
}

const overrideCaller = (caller: Principal) => ({ sub: caller.authenticated ? caller.sub : undefined, admin: caller.roles.includes(ONCALL_ADMIN_ROLE) });
