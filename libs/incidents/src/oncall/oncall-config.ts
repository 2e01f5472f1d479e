import { IANAZone } from 'luxon';
import { InvalidError } from '../domain-errors';
import { type Layer, type Restriction, type RotationUnit, WEEKDAYS } from './schedule';

/**
 * The on-call configuration as its events record it (snake_case, as the REST
 * bodies spell it), and the rules each piece must follow on its own. Rules
 * that look at other pieces (a policy naming a schedule, unique service
 * names) are the Decider's, decided on the whole `oncall` stream.
 */

export const ONCALL_NAME_MAX_LENGTH = 100;
export const SERVICE_DESCRIPTION_MAX_LENGTH = 1000;
export const STEP_DELAY_SECONDS = { min: 1, max: 86_400 } as const;
export const POLICY_REPEAT = { min: 0, max: 9 } as const;
/** How often a heartbeat must be pinged (docs/api.md, "Heartbeats"). */
export const HEARTBEAT_INTERVAL_SECONDS = { min: 10, max: 86_400 } as const;
export const ROTATION_EVERY = { min: 1, max: 365 } as const;
export const ROTATION_UNITS: readonly RotationUnit[] = ['hours', 'days', 'weeks'];
export const TARGET_TYPES = ['user', 'schedule'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export interface ServiceData {
  id: string;
  name: string;
  description: string | null;
  escalation_policy_id: string | null;
}

export interface PolicyTarget {
  type: TargetType;
  id: string;
}
export interface PolicyStep {
  delay_seconds: number;
  targets: PolicyTarget[];
}
export interface PolicyData {
  id: string;
  name: string;
  steps: PolicyStep[];
  repeat: number;
}

export interface ScheduleData {
  id: string;
  name: string;
  time_zone: string;
  layers: Layer[];
}

export interface OverrideData {
  schedule_id: string;
  id: string;
  user: string;
  start: string;
  end: string;
}

export interface HeartbeatData {
  id: string;
  name: string;
  interval_seconds: number;
  service_id: string;
}

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const inRange = (value: number, { min, max }: { min: number; max: number }) => Number.isInteger(value) && value >= min && value <= max;
const isInstant = (text: string) => Number.isFinite(Date.parse(text));

/** Collects every problem of a piece, so one answer names them all (as the body parsers do). */
class Problems {
  private readonly found: string[] = [];
  check(ok: boolean, problem: string): void {
    if (!ok) this.found.push(problem);
  }
  throwIfAny(): void {
    if (this.found.length) throw new InvalidError(this.found.join('; '));
  }
}

const checkName = (problems: Problems, name: string) =>
  problems.check(isText(name) && name.length <= ONCALL_NAME_MAX_LENGTH, `name must be a non-empty text of at most ${ONCALL_NAME_MAX_LENGTH} characters`);

/** A service's own rules; its name trimmed. */
export function checkedService(service: ServiceData): ServiceData {
  const problems = new Problems();
  checkName(problems, service.name);
  problems.check(
    service.description === null || service.description.length <= SERVICE_DESCRIPTION_MAX_LENGTH,
    `description must be a text of at most ${SERVICE_DESCRIPTION_MAX_LENGTH} characters`,
  );
  problems.check(service.escalation_policy_id === null || isText(service.escalation_policy_id), 'escalation_policy_id must be a policy id');
  problems.throwIfAny();
  return { ...service, name: service.name.trim() };
}

/** A policy's own rules: at least one step, each with a delay in range and at least one target of a known type. */
export function checkedPolicy(policy: PolicyData): PolicyData {
  const problems = new Problems();
  checkName(problems, policy.name);
  problems.check(policy.steps.length > 0, 'steps must list at least one step');
  policy.steps.forEach((step, i) => {
    problems.check(
      inRange(step.delay_seconds, STEP_DELAY_SECONDS),
      `steps[${i}].delay_seconds must be an integer from ${STEP_DELAY_SECONDS.min} to ${STEP_DELAY_SECONDS.max}`,
    );
    problems.check(step.targets.length > 0, `steps[${i}].targets must list at least one target`);
    step.targets.forEach((target, j) => {
      problems.check((TARGET_TYPES as readonly string[]).includes(target.type), `steps[${i}].targets[${j}].type must be one of ${TARGET_TYPES.join(', ')}`);
      problems.check(isText(target.id), `steps[${i}].targets[${j}].id must be a non-empty text`);
    });
  });
  problems.check(inRange(policy.repeat, POLICY_REPEAT), `repeat must be an integer from ${POLICY_REPEAT.min} to ${POLICY_REPEAT.max}`);
  problems.throwIfAny();
  return { ...policy, name: policy.name.trim() };
}

/** The zone's canonical IANA name (`europe/berlin` is `Europe/Berlin`), or undefined when it is none. */
export function canonicalTimeZone(name: string): string | undefined {
  if (!IANAZone.isValidZone(name)) return undefined;
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
}

function checkRestriction(problems: Problems, restriction: Restriction, at: string) {
  problems.check(
    restriction.days.length > 0 && restriction.days.every((day) => (WEEKDAYS as readonly string[]).includes(day)),
    `${at}.days must list days among ${WEEKDAYS.join(', ')}`,
  );
  problems.check(HH_MM.test(restriction.from), `${at}.from must be a local time HH:MM (00:00 to 23:59)`);
  problems.check(HH_MM.test(restriction.to), `${at}.to must be a local time HH:MM (00:00 to 23:59)`);
}

/** A schedule's own rules: an IANA zone (kept by its canonical name), and each layer's start, rotation, users and restrictions. */
export function checkedSchedule(schedule: ScheduleData): ScheduleData {
  const problems = new Problems();
  checkName(problems, schedule.name);
  const zone = canonicalTimeZone(schedule.time_zone);
  problems.check(zone !== undefined, 'time_zone must be an IANA time zone name, e.g. Europe/Berlin');
  schedule.layers.forEach((layer, i) => {
    const at = `layers[${i}]`;
    problems.check(isText(layer.name) && layer.name.length <= ONCALL_NAME_MAX_LENGTH, `${at}.name must be a non-empty text of at most ${ONCALL_NAME_MAX_LENGTH} characters`);
    problems.check(isInstant(layer.start), `${at}.start must be an RFC 3339 time`);
    problems.check(inRange(layer.rotation.every, ROTATION_EVERY), `${at}.rotation.every must be an integer from ${ROTATION_EVERY.min} to ${ROTATION_EVERY.max}`);
    problems.check(ROTATION_UNITS.includes(layer.rotation.unit), `${at}.rotation.unit must be one of ${ROTATION_UNITS.join(', ')}`);
    problems.check(layer.users.length > 0 && layer.users.every(isText), `${at}.users must list at least one user (their sub)`);
    layer.restrictions?.forEach((restriction, j) => checkRestriction(problems, restriction, `${at}.restrictions[${j}]`));
  });
  problems.throwIfAny();
  return { ...schedule, name: schedule.name.trim(), time_zone: zone as string };
}

/** An override's own rules: a user, and an end after its start. */
export function checkOverride(override: OverrideData): void {
  const problems = new Problems();
  problems.check(isText(override.user), 'user must be a non-empty text (the sub of who takes the shift)');
  const [start, end] = [Date.parse(override.start), Date.parse(override.end)];
  problems.check(Number.isFinite(start), 'start must be an RFC 3339 time');
  problems.check(Number.isFinite(end), 'end must be an RFC 3339 time');
  if (Number.isFinite(start) && Number.isFinite(end)) problems.check(end > start, 'end must be after start');
  problems.throwIfAny();
}

/** A heartbeat's own rules: a name, an interval in range and a service id (that it exists is the Decider's rule); its name trimmed. */
export function checkedHeartbeat(heartbeat: HeartbeatData): HeartbeatData {
  const problems = new Problems();
  checkName(problems, heartbeat.name);
  problems.check(
    inRange(heartbeat.interval_seconds, HEARTBEAT_INTERVAL_SECONDS),
    `interval_seconds must be an integer from ${HEARTBEAT_INTERVAL_SECONDS.min} to ${HEARTBEAT_INTERVAL_SECONDS.max}`,
  );
  problems.check(isText(heartbeat.service_id), 'service_id must be a service id');
  problems.throwIfAny();
  return { ...heartbeat, name: heartbeat.name.trim() };
}
