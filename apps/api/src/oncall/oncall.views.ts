import { heartbeatStatus } from '@im/incidents';
import type { EscalationPolicyRecord, HeartbeatRecord, OverrideRecord, ScheduleRecord, ServiceRecord } from '@im/read-models';

/** The on-call configuration as REST shows it: the contract's snake_case fields. */

export const toServiceView = (service: ServiceRecord) => ({
  id: service.id,
  name: service.name,
  description: service.description,
  escalation_policy_id: service.escalationPolicyId,
  created_at: service.createdAt,
});

export const toEscalationPolicyView = (policy: EscalationPolicyRecord) => ({ id: policy.id, name: policy.name, steps: policy.steps, repeat: policy.repeat });

export const toOverrideView = (override: OverrideRecord) => ({ id: override.id, user: override.user, start: override.start, end: override.end, created_at: override.createdAt });

export const toScheduleView = (schedule: ScheduleRecord) => ({
  id: schedule.id,
  name: schedule.name,
  time_zone: schedule.timeZone,
  layers: schedule.layers,
  overrides: schedule.overrides.map(toOverrideView),
});

/** Its status at `now`: the read model keeps the facts (creation, last ping), the status is computed as it is read. */
export const toHeartbeatView = (heartbeat: HeartbeatRecord, now: Date) => ({
  id: heartbeat.id,
  name: heartbeat.name,
  interval_seconds: heartbeat.intervalSeconds,
  service_id: heartbeat.serviceId,
  last_ping_at: heartbeat.lastPingAt,
  status: heartbeatStatus(heartbeat, now.getTime()),
});

export type ServiceView = ReturnType<typeof toServiceView>;
export type EscalationPolicyView = ReturnType<typeof toEscalationPolicyView>;
export type ScheduleView = ReturnType<typeof toScheduleView>;
export type OverrideView = ReturnType<typeof toOverrideView>;
export type HeartbeatView = ReturnType<typeof toHeartbeatView>;
