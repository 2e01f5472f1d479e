import { ConflictError } from '../domain-errors';
import type { EscalationState, Incident } from '../incident';
import { type LedgerEvent, type Paged, PAGING_EVENT_TYPES, type PagedUser, SERVICE_ASSIGNED_TYPE } from '../incident-events';

/**
 * An incident's paging against its escalation policy, as pure answers over the
 * folded state (docs/decisions.md, "Cancel, duplicate and the escalation
 * state"): which (step, round) is paged next, when the current step falls due,
 * and the fold of the paging events. The incident decider decides with these;
 * whatever runs the timers asks the same questions.
 */

/** What paging needs of a policy (the on-call policy, whose steps also name their targets). */
export interface EscalationPolicyShape {
  steps: readonly { delay_seconds: number }[];
  /** How many times the policy starts again from step 1 after the last step: rounds run from 1 to repeat + 1. */
  repeat: number;
}

/** A step's targets as resolved at the time of paging: the users to page and the schedules with no one on call. */
export interface StepTargets {
  paged: readonly PagedUser[];
  unstaffed: readonly string[];
}

export interface StepRound {
  step: number;
  round: number;
}

/** The (step, round) paged next, or undefined when nothing is left (escalation exhausted). */
export function nextStep(policy: EscalationPolicyShape, escalation: EscalationState): StepRound | undefined {
  if (escalation.exhausted || policy.steps.length === 0) return undefined;
  if (escalation.step === 0) return { step: 1, round: 1 };
  if (escalation.step < policy.steps.length) return { step: escalation.step + 1, round: escalation.round };
  if (escalation.round < policy.repeat + 1) return { step: 1, round: escalation.round + 1 };
  return undefined;
}

/**
 * When the current step falls due: its page's time plus its delay. A step the
 * policy no longer has (it was edited since) is due at once. Undefined before
 * the first page and once exhausted: no timer runs then.
 */
export function stepDueAt(policy: EscalationPolicyShape, escalation: EscalationState): string | undefined {
  if (escalation.exhausted || escalation.pagedAt === null || escalation.step === 0) return undefined;
  const delaySeconds = policy.steps[escalation.step - 1]?.delay_seconds ?? 0;
  return new Date(Date.parse(escalation.pagedAt) + delaySeconds * 1000).toISOString();
}

/** A policy with no step: what an incident whose policy is gone escalates by (nothing is left to page). */
export const NO_STEPS: EscalationPolicyShape = { steps: [], repeat: 0 };

/** What a timer does next for an incident: page step 1 (never paged yet), or escalate from the step it saw once that falls due. */
export type PagingDue = { kind: 'page'; at: string } | { kind: 'escalate'; at: string; seen: StepRound };

/**
 * When an incident's paging next fires by its policy, and as which command:
 * none unless it is open, has a policy and is not exhausted. The first page is
 * due when the incident opened; a later step when stepDueAt says.
 */
export function pagingDue(incident: Incident, policy: EscalationPolicyShape): PagingDue | undefined {
  const { escalation } = incident;
  if (incident.status !== 'open' || !escalation?.policyId || escalation.exhausted) return undefined;
  if (escalation.step === 0) return { kind: 'page', at: incident.createdAt };
  const at = stepDueAt(policy, escalation);
  return at === undefined ? undefined : { kind: 'escalate', at, seen: { step: escalation.step, round: escalation.round } };
}

/**
 * Why a responder's escalation of the incident would be refused (409), or
 * undefined when it would page the next step: the incident decider decides
 * with it, and the ESCALATE quick action is enabled by it.
 */
export function manualEscalationRefusal(incident: Incident, policy: EscalationPolicyShape): ConflictError | undefined {
  if (incident.status !== 'open' && incident.status !== 'acknowledged') {
    return new ConflictError(`Cannot escalate incident ${incident.id}: it is ${incident.status}`);
  }
  const { escalation } = incident;
  if (!escalation?.policyId) return new ConflictError(`Incident ${incident.id} has no escalation policy to escalate by`);
  if (!nextStep(policy, escalation)) return new ConflictError(`Cannot escalate incident ${incident.id}: no step is left to page`);
  return undefined;
}

/** The data of a page: a user both targeted and on call (or on call in two schedules) is paged once, as the first target that named them. */
export function pageData({ step, round }: StepRound, targets: StepTargets | undefined): Paged['data'] {
  const users = new Set<string>();
  const paged = (targets?.paged ?? []).filter(({ user }) => !users.has(user) && users.add(user));
  return { step, round, paged: paged.map(({ user, via }) => ({ user, via })), unstaffed: [...new Set(targets?.unstaffed ?? [])] };
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;

/** Paging as folded so far: service_assigned starts it (first one wins: an incident's service is fixed when it opens); pages move it. */
export function evolveEscalation(incident: Incident, event: LedgerEvent): Incident {
  const data = event.data ?? {};
  if (event.type === SERVICE_ASSIGNED_TYPE) {
    if (incident.escalation || typeof data.service_id !== 'string') return incident;
    const policyId = typeof data.escalation_policy_id === 'string' ? data.escalation_policy_id : null;
    return { ...incident, escalation: { serviceId: data.service_id, policyId, step: 0, round: 0, pagedAt: null, paged: [], exhausted: false } };
  }
  const { escalation } = incident;
  if (!escalation) return incident;
  if (event.type === PAGING_EVENT_TYPES.page) {
    const { step, round, paged } = data;
    if (!isCount(step) || !isCount(round) || !Array.isArray(paged)) return incident;
    const users = paged.map((entry: { user?: unknown }) => entry?.user).filter((user): user is string => typeof user === 'string');
    return { ...incident, escalation: { ...escalation, step, round, pagedAt: event.time, paged: users, exhausted: false } };
  }
  if (event.type === PAGING_EVENT_TYPES.exhausted) return { ...incident, escalation: { ...escalation, exhausted: true } };
  // im.paging.escalate changes nothing by itself (the page after it does); integrations have recorded it with data of their own.
  return incident;
}
