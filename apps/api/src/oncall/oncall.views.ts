import type { EscalationPolicyRecord, OverrideRecord, ScheduleRecord, ServiceRecord } from '@im/read-models';

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

export type ServiceView = ReturnType<typeof toServiceView>;
export type EscalationPolicyView = ReturnType<typeof toEscalationPolicyView>;
export type ScheduleView = ReturnType<typeof toScheduleView>;
export type OverrideView = ReturnType<typeof toOverrideView>;
