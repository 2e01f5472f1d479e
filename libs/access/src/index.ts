/** Who sees what: the caller, the PDP and policy file, an incident's visibility, the policy step of every timeline read. */
export * from './incident-query.service';
export * from './incident-visibility';
export * from './policy-tokens';
export * from './policy.module';
export * from './principal';
export * from './timeline-authorizer';
