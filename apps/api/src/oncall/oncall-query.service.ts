import { Inject, Injectable } from '@nestjs/common';
import { heartbeatNotFound, type Incident, policyNotFound, scheduleNotFound, serviceNotFound, shiftsBetween, onCallAt } from '@im/incidents';
import { CLOCK, type Clock } from '@im/write-path';
import { compileOf, CompiledSchedules, type ConfigDocuments, type EscalationPolicyRecord, type HeartbeatRecord, ONCALL_QUERIES, type OncallQueries, type ReadySchedule, type ServiceRecord } from '@im/read-models';
import { toEscalationPolicyView, toHeartbeatView, toScheduleView, toServiceView } from './oncall.views';

/** One of the caller's shifts in a schedule (myOnCall). */
export interface OwnShift {
  scheduleId: string;
  scheduleName: string;
  start: Date;
  end: Date;
}

const iso = (t: number) => new Date(t).toISOString();

async function found<Doc>(documents: ConfigDocuments<Doc>, id: string, notFound: (id: string) => Error): Promise<Doc> {
  const doc = await documents.findById(id);
  if (!doc) throw notFound(id);
  return doc;
}

/**
 * What anyone signed in reads of on call: services, policies, schedules, and
 * who is on call, answered by the domain's schedule arithmetic over the
 * schedule read model. REST and GraphQL both read through it.
 */
@Injectable()
export class OncallQueryService {
  private readonly compiled: CompiledSchedules;

  constructor(
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.compiled = new CompiledSchedules(oncall.schedules);
  }

  private async ready(id: string): Promise<ReadySchedule> {
    const schedule = await this.compiled.get(id);
    if (!schedule) throw scheduleNotFound(id);
    return schedule;
  }

  async services() {
    return (await this.oncall.services.list()).map(toServiceView);
  }

  async service(id: string) {
    return toServiceView(await found(this.oncall.services, id, serviceNotFound));
  }

  async escalationPolicies() {
    return (await this.oncall.escalationPolicies.list()).map(toEscalationPolicyView);
  }

  async escalationPolicy(id: string) {
    return toEscalationPolicyView(await found(this.oncall.escalationPolicies, id, policyNotFound));
  }

  async schedules() {
    return (await this.oncall.schedules.list()).map(toScheduleView);
  }

  async schedule(id: string) {
    return toScheduleView(await found(this.oncall.schedules, id, scheduleNotFound));
  }

  async heartbeats() {
    const now = this.clock.now();
    return (await this.oncall.heartbeats.list()).map((heartbeat) => toHeartbeatView(heartbeat, now));
  }

  async heartbeat(id: string) {
    return toHeartbeatView(await this.heartbeatRecord(id), this.clock.now());
  }

  /** A heartbeat's record (404 when none exists, or it was deleted). */
  heartbeatRecord(id: string): Promise<HeartbeatRecord> {
    return found(this.oncall.heartbeats, id, heartbeatNotFound);
  }

  async onCall(id: string, at: number) {
    return { schedule_id: id, at: iso(at), user: onCallAt((await this.ready(id)).compiled, at) };
  }

  async shifts(id: string, window: { from: number; to: number }) {
    return { shifts: shiftsBetween((await this.ready(id)).compiled, window.from, window.to).map(({ user, start, end }) => ({ user, start: iso(start), end: iso(end) })) };
  }

  /** A service's record; undefined when none exists (or it was deleted). */
  serviceRecord(id: string): Promise<ServiceRecord | undefined> {
    return this.oncall.services.findById(id);
  }

  /** The service each incident belongs to, in order: undefined for none, or one deleted since (one read per service named, not a list of all). */
  async servicesOf(incidents: readonly Incident[]): Promise<(ServiceRecord | undefined)[]> {
    const ids = [...new Set(incidents.flatMap((incident) => (incident.escalation ? [incident.escalation.serviceId] : [])))];
    const services = new Map(await Promise.all(ids.map(async (id) => [id, await this.oncall.services.findById(id)] as const)));
    return incidents.map((incident) => (incident.escalation ? services.get(incident.escalation.serviceId) : undefined));
  }

  /** The escalation policy the incident pages by: undefined for none, or one deleted since. */
  async policyOf(incident: Incident): Promise<EscalationPolicyRecord | undefined> {
    const policyId = incident.escalation?.policyId;
    return policyId ? this.oncall.escalationPolicies.findById(policyId) : undefined;
  }

  /** The user's shifts in [from, to) across every schedule, in time order (ties by schedule name). */
  async shiftsOf(user: string, from: number, to: number): Promise<OwnShift[]> {
    const schedules = await this.oncall.schedules.list();
    return schedules
      .flatMap((schedule) =>
        shiftsBetween(compileOf(schedule), from, to)
          .filter((shift) => shift.user === user)
          .map((shift) => ({ scheduleId: schedule.id, scheduleName: schedule.name, start: new Date(shift.start), end: new Date(shift.end) })),
      )
      .sort((a, b) => a.start.getTime() - b.start.getTime() || a.scheduleName.localeCompare(b.scheduleName));
  }
}
