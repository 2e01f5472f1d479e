/** Nest injection token of the policy decision point. */
export const PDP = Symbol('PDP');

export type PolicyAction = 'timeline.read' | 'timeline.query' | 'timeline.export';

/** The same document goes to every PDP adapter, embedded or OPA. */
export interface PolicyInput {
  subject: { sub: string; roles: string[]; clearance: string; data_access: string[] };
  action: PolicyAction;
  resources: PolicyResource[];
}

export interface PolicyResource {
  visibility?: string;
  data_class?: string[];
}

export type RedactedField = 'content' | 'data' | 'actor';

export interface PolicyDecision {
  /** False: the event is withheld, as if it did not exist. */
  visible: boolean;
  /** Fields to show as "[REDACTED]". */
  redact: RedactedField[];
}

/** The PDP could not decide (unreachable, too slow, an error or no answer): the read is refused. */
export class PolicyUnavailableError extends Error {}

export interface PolicyDecisionPoint {
  /** One decision per resource, in order. Throws PolicyUnavailableError when it cannot decide. */
  decide(input: PolicyInput): Promise<PolicyDecision[]>;
  /** A cheap round trip, for diagnostics. */
  ping(): Promise<void>;
}
