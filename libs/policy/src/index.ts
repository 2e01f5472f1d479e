export * from './policy.port';
export * from './timeline-policy';
export * from './redaction';
export * from './adapters/embedded-pdp';
export * from './adapters/opa-pdp';
