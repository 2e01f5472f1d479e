import { readFileSync } from 'node:fs';
import { ConfigError } from '@im/config';

/** The declarative policy file (policy/timeline-policy.json) that both PDPs apply. */
export interface TimelinePolicy {
  roles: Record<string, string>;
  visibility_rank: Record<string, number>;
  default_visibility: string;
  default_clearance: string;
  redaction: {
    replacement: string;
    /** The allow-list: the only CloudEvent attributes a redacted event shows, besides `im.actor` and `data`, which the decision governs. */
    attributes_kept: string[];
    data_keys_kept: string[];
    actor_redacted_for: string[];
  };
}

/** A redacted export must still be a CloudEvent. */
const REQUIRED_ATTRIBUTES = ['specversion', 'id', 'source', 'type', 'time'];
/** Shown or replaced as the decision says, so not for the allow-list to keep whole. */
const DECIDED_ATTRIBUTES = ['data', 'data_base64', 'im.actor', 'im.sender', 'im.redacted'];

/** A broken policy file stops the service at start-up, reported like any configuration mistake. */
export class PolicyFileError extends ConfigError {}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function attributesKeptProblem(kept: unknown): string {
  if (!isStringArray(kept)) return 'redaction.attributes_kept must be a list of CloudEvent attribute names';
  const missing = REQUIRED_ATTRIBUTES.filter((name) => !kept.includes(name));
  if (missing.length) return `redaction.attributes_kept must keep ${missing.join(', ')} (a redacted export is still a CloudEvent)`;
  const decided = DECIDED_ATTRIBUTES.filter((name) => kept.includes(name));
  return decided.length ? `redaction.attributes_kept must not name ${decided.join(', ')} (the decision governs them)` : '';
}

/** Reads and checks the policy file, so a broken edit stops the service at start-up, not at the first read. */
export function loadTimelinePolicy(file: string): TimelinePolicy {
  let policy: TimelinePolicy;
  try {
    policy = JSON.parse(readFileSync(file, 'utf8')) as TimelinePolicy;
  } catch (error) {
    throw new PolicyFileError(`cannot read the policy file ${file}: ${(error as Error).message}`);
  }
  const ranks = policy.visibility_rank ?? {};
  const problems = [
    typeof policy.roles !== 'object' || !Object.values(policy.roles ?? {}).every((r) => typeof r === 'string')
      ? 'roles must map actions to role names'
      : '',
    !Object.values(ranks).every((r) => Number.isInteger(r)) || Object.keys(ranks).length === 0
      ? 'visibility_rank must map levels to whole numbers'
      : '',
    !(policy.default_visibility in ranks) ? 'default_visibility must be a level of visibility_rank' : '',
    !(policy.default_clearance in ranks) ? 'default_clearance must be a level of visibility_rank' : '',
    typeof policy.redaction?.replacement !== 'string' ? 'redaction.replacement must be a string' : '',
    attributesKeptProblem(policy.redaction?.attributes_kept),
    !isStringArray(policy.redaction?.data_keys_kept) ? 'redaction.data_keys_kept must be a list of keys' : '',
    !isStringArray(policy.redaction?.actor_redacted_for) ? 'redaction.actor_redacted_for must be a list of classes' : '',
  ].filter(Boolean);
  if (problems.length) throw new PolicyFileError(`policy file ${file}: ${problems.join('; ')}`);
  return policy;
}

/** The visibility levels a clearance covers: those ranked at or below it (none for a clearance the policy does not rank). */
export function levelsCleared(policy: TimelinePolicy, clearance: string): string[] {
  const ranks = policy.visibility_rank;
  const cleared = ranks[clearance];
  return cleared === undefined ? [] : Object.keys(ranks).filter((level) => ranks[level] <= cleared);
}
