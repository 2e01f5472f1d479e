/** Nest injection token of the loaded policy file (policy/timeline-policy.json). */
export const TIMELINE_POLICY = Symbol('TIMELINE_POLICY');
