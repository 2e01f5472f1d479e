import type { Decider, StreamEvent } from '../decider';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../domain-errors';
import { ONCALL_STREAM } from '../stream-names';
import {
  checkedHeartbeat,
  checkedPolicy,
  checkedSchedule,
  checkedService,
  checkOverride,
  type HeartbeatData,
  type OverrideData,
  type PolicyData,
  type ScheduleData,
  type ServiceData,
} from './oncall-config';

/** Event type strings are a public contract: never rename them. */
export const ONCALL_EVENT_TYPES = {
  serviceCreated: 'im.oncall.service_created',
  serviceUpdated: 'im.oncall.service_updated',
  serviceDeleted: 'im.oncall.service_deleted',
  policyCreated: 'im.oncall.policy_created',
  policyUpdated: 'im.oncall.policy_updated',
  policyDeleted: 'im.oncall.policy_deleted',
  scheduleCreated: 'im.oncall.schedule_created',
  scheduleUpdated: 'im.oncall.schedule_updated',
  scheduleDeleted: 'im.oncall.schedule_deleted',
  overrideCreated: 'im.oncall.override_created',
  overrideDeleted: 'im.oncall.override_deleted',
  heartbeatCreated: 'im.oncall.heartbeat_created',
  heartbeatDeleted: 'im.oncall.heartbeat_deleted',
} as const;
const T = ONCALL_EVENT_TYPES;

export type OncallEvent =
  | { type: typeof T.serviceCreated | typeof T.serviceUpdated; data: ServiceData }
  | { type: typeof T.policyCreated | typeof T.policyUpdated; data: PolicyData }
  | { type: typeof T.scheduleCreated | typeof T.scheduleUpdated; data: ScheduleData }
  | { type: typeof T.overrideCreated; data: OverrideData }
  | { type: typeof T.heartbeatCreated; data: HeartbeatData }
  | { type: typeof T.serviceDeleted | typeof T.policyDeleted | typeof T.scheduleDeleted | typeof T.heartbeatDeleted; data: { id: string } }
  | { type: typeof T.overrideDeleted; data: { schedule_id: string; id: string } };

/** Who asks to take or drop an override: an `oncall.admin`, or the override's own user (sub undefined: an anonymous caller, never a user). */
export interface OverrideCaller {
  sub: string | undefined;
  admin: boolean;
}

export type OncallCommand =
  | { kind: 'create_service' | 'update_service'; service: ServiceData }
  /** `openIncidents`: the unresolved incidents that belong to the service, as the caller counted them. */
  | { kind: 'delete_service'; id: string; openIncidents: number }
  | { kind: 'create_policy' | 'update_policy'; policy: PolicyData }
  | { kind: 'delete_policy'; id: string }
  | { kind: 'create_schedule' | 'update_schedule'; schedule: ScheduleData }
  | { kind: 'delete_schedule'; id: string }
  | { kind: 'create_override'; override: OverrideData; by: OverrideCaller }
  | { kind: 'delete_override'; scheduleId: string; id: string; by: OverrideCaller }
  | { kind: 'create_heartbeat'; heartbeat: HeartbeatData }
  | { kind: 'delete_heartbeat'; id: string };

/** What decisions need of the `oncall` stream: every live service, policy and heartbeat, and each schedule's live overrides. */
export interface OncallState {
  readonly services: ReadonlyMap<string, ServiceData>;
  readonly policies: ReadonlyMap<string, PolicyData>;
  readonly schedules: ReadonlyMap<string, ReadonlyMap<string, OverrideData>>;
  readonly heartbeats: ReadonlyMap<string, HeartbeatData>;
}

export const initialOncallState: OncallState = { services: new Map(), policies: new Map(), schedules: new Map(), heartbeats: new Map() };

export const serviceNotFound = (id: string) => new NotFoundError(`Service ${id} not found`);
export const policyNotFound = (id: string) => new NotFoundError(`Escalation policy ${id} not found`);
export const scheduleNotFound = (id: string) => new NotFoundError(`Schedule ${id} not found`);
export const heartbeatNotFound = (id: string) => new NotFoundError(`Heartbeat ${id} not found`);

const withEntry = <V>(map: ReadonlyMap<string, V>, key: string, value: V) => new Map(map).set(key, value);
const without = <V>(map: ReadonlyMap<string, V>, key: string) => {
  const next = new Map(map);
  next.delete(key);
  return next;
};

export function evolveOncall(state: OncallState, event: StreamEvent): OncallState {
  switch (event.type) {
    case T.serviceCreated:
    case T.serviceUpdated: {
      const service = event.data as ServiceData;
      return { ...state, services: withEntry(state.services, service.id, service) };
    }
    case T.serviceDeleted:
      return { ...state, services: without(state.services, (event.data as { id: string }).id) };
    case T.policyCreated:
    case T.policyUpdated: {
      const policy = event.data as PolicyData;
      return { ...state, policies: withEntry(state.policies, policy.id, policy) };
    }
    case T.policyDeleted:
      return { ...state, policies: without(state.policies, (event.data as { id: string }).id) };
    case T.scheduleCreated:
    case T.scheduleUpdated: {
      const { id } = event.data as ScheduleData;
      // An update keeps the schedule's overrides.
      return { ...state, schedules: withEntry(state.schedules, id, state.schedules.get(id) ?? new Map()) };
    }
    case T.scheduleDeleted:
      return { ...state, schedules: without(state.schedules, (event.data as { id: string }).id) };
    case T.overrideCreated: {
      const override = event.data as OverrideData;
      const overrides = state.schedules.get(override.schedule_id);
      return overrides ? { ...state, schedules: withEntry(state.schedules, override.schedule_id, withEntry(overrides, override.id, override)) } : state;
    }
    case T.overrideDeleted: {
      const { schedule_id: scheduleId, id } = event.data as { schedule_id: string; id: string };
      const overrides = state.schedules.get(scheduleId);
      return overrides ? { ...state, schedules: withEntry(state.schedules, scheduleId, without(overrides, id)) } : state;
    }
    case T.heartbeatCreated: {
      const heartbeat = event.data as HeartbeatData;
      return { ...state, heartbeats: withEntry(state.heartbeats, heartbeat.id, heartbeat) };
    }
    case T.heartbeatDeleted:
      return { ...state, heartbeats: without(state.heartbeats, (event.data as { id: string }).id) };
    default:
      return state;
  }
}

/** Service names are one name whatever their case (docs/decisions.md, "On-call configuration"). */
export const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function decideService(kind: 'create_service' | 'update_service', given: ServiceData, state: OncallState): OncallEvent[] {
  const service = checkedService(given);
  const existing = state.services.get(service.id);
  if (kind === 'create_service' && existing) throw new ConflictError(`Service ${service.id} already exists`);
  if (kind === 'update_service' && !existing) throw serviceNotFound(service.id);
  if (service.escalation_policy_id !== null && !state.policies.has(service.escalation_policy_id)) {
    throw new InvalidError(`escalation_policy_id: escalation policy ${service.escalation_policy_id} not found`);
  }
  const namesake = [...state.services.values()].find((other) => other.id !== service.id && sameName(other.name, service.name));
  if (namesake) throw new ConflictError(`A service named ${namesake.name} exists already (${namesake.id})`);
  return [{ type: kind === 'create_service' ? T.serviceCreated : T.serviceUpdated, data: service }];
}

function decidePolicy(kind: 'create_policy' | 'update_policy', given: PolicyData, state: OncallState): OncallEvent[] {
  const policy = checkedPolicy(given);
  const existing = state.policies.has(policy.id);
  if (kind === 'create_policy' && existing) throw new ConflictError(`Escalation policy ${policy.id} already exists`);
  if (kind === 'update_policy' && !existing) throw policyNotFound(policy.id);
  const missing = policy.steps.flatMap((step, i) =>
    step.targets.flatMap((target, j) => (target.type === 'schedule' && !state.schedules.has(target.id) ? [`steps[${i}].targets[${j}].id: schedule ${target.id} not found`] : [])),
  );
  if (missing.length) throw new InvalidError(missing.join('; '));
  return [{ type: kind === 'create_policy' ? T.policyCreated : T.policyUpdated, data: policy }];
}

function decideSchedule(kind: 'create_schedule' | 'update_schedule', given: ScheduleData, state: OncallState): OncallEvent[] {
  const schedule = checkedSchedule(given);
  const existing = state.schedules.has(schedule.id);
  if (kind === 'create_schedule' && existing) throw new ConflictError(`Schedule ${schedule.id} already exists`);
  if (kind === 'update_schedule' && !existing) throw scheduleNotFound(schedule.id);
  return [{ type: kind === 'create_schedule' ? T.scheduleCreated : T.scheduleUpdated, data: schedule }];
}

const mayHandle = (by: OverrideCaller, user: string) => by.admin || (by.sub !== undefined && by.sub === user);

function decideOverride(command: Extract<OncallCommand, { kind: 'create_override' | 'delete_override' }>, state: OncallState): OncallEvent[] {
  if (command.kind === 'create_override') {
    const { override, by } = command;
    if (!state.schedules.has(override.schedule_id)) throw scheduleNotFound(override.schedule_id);
    if (!mayHandle(by, override.user)) throw new ForbiddenError('An override for another user needs the oncall.admin role; anyone may take a shift themself');
    checkOverride(override);
    if (state.schedules.get(override.schedule_id)?.has(override.id)) throw new ConflictError(`Override ${override.id} already exists`);
    return [{ type: T.overrideCreated, data: override }];
  }
  const { scheduleId, id, by } = command;
  const overrides = state.schedules.get(scheduleId);
  if (!overrides) throw scheduleNotFound(scheduleId);
  const override = overrides.get(id);
  if (!override) throw new NotFoundError(`Override ${id} of schedule ${scheduleId} not found`);
  if (!mayHandle(by, override.user)) throw new ForbiddenError("Another user's override may be deleted only with the oncall.admin role");
  return [{ type: T.overrideDeleted, data: { schedule_id: scheduleId, id } }];
}

/**
 * Every rule of the on-call configuration, decided on the one `oncall` stream
 * so that the checks across pieces hold without races: a service names an
 * existing policy and a unique name, a policy names existing schedules, a
 * heartbeat an existing service, and nothing is deleted while another piece
 * names it.
 */
export function decideOncall(command: OncallCommand, state: OncallState): OncallEvent[] {
  switch (command.kind) {
    case 'create_service':
    case 'update_service':
      return decideService(command.kind, command.service, state);
    case 'delete_service': {
      if (!state.services.has(command.id)) throw serviceNotFound(command.id);
      if (command.openIncidents > 0) throw new ConflictError(`Service ${command.id} has ${command.openIncidents} unresolved incident(s): resolve them first`);
      const heartbeat = [...state.heartbeats.values()].find((one) => one.service_id === command.id);
      if (heartbeat) throw new ConflictError(`Service ${command.id} is the service of heartbeat ${heartbeat.name} (${heartbeat.id})`);
      return [{ type: T.serviceDeleted, data: { id: command.id } }];
    }
    case 'create_policy':
    case 'update_policy':
      return decidePolicy(command.kind, command.policy, state);
    case 'delete_policy': {
      if (!state.policies.has(command.id)) throw policyNotFound(command.id);
      const user = [...state.services.values()].find((service) => service.escalation_policy_id === command.id);
      if (user) throw new ConflictError(`Escalation policy ${command.id} is the policy of service ${user.name} (${user.id})`);
      return [{ type: T.policyDeleted, data: { id: command.id } }];
    }
    case 'create_schedule':
    case 'update_schedule':
      return decideSchedule(command.kind, command.schedule, state);
    case 'delete_schedule': {
      if (!state.schedules.has(command.id)) throw scheduleNotFound(command.id);
      const user = [...state.policies.values()].find((policy) => policy.steps.some((step) => step.targets.some((t) => t.type === 'schedule' && t.id === command.id)));
      if (user) throw new ConflictError(`Schedule ${command.id} is a target of escalation policy ${user.name} (${user.id})`);
      return [{ type: T.scheduleDeleted, data: { id: command.id } }];
    }
    case 'create_override':
    case 'delete_override':
      return decideOverride(command, state);
    case 'create_heartbeat': {
      const heartbeat = checkedHeartbeat(command.heartbeat);
      if (state.heartbeats.has(heartbeat.id)) throw new ConflictError(`Heartbeat ${heartbeat.id} already exists`);
      if (!state.services.has(heartbeat.service_id)) throw new InvalidError(`service_id: service ${heartbeat.service_id} not found`);
      return [{ type: T.heartbeatCreated, data: heartbeat }];
    }
    case 'delete_heartbeat': {
      if (!state.heartbeats.has(command.id)) throw heartbeatNotFound(command.id);
      return [{ type: T.heartbeatDeleted, data: { id: command.id } }];
    }
    default: {
      const unhandled: never = command;
      throw new InvalidError(`Unknown command ${String((unhandled as { kind?: unknown }).kind)}`);
    }
  }
}

export const oncallDecider: Decider<OncallCommand, OncallState, StreamEvent> = {
  stream: { subject: 'on-call configuration', streamId: () => ONCALL_STREAM },
  initialState: initialOncallState,
  decide: decideOncall,
  evolve: evolveOncall,
};
