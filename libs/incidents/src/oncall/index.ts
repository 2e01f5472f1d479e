export * from './schedule';
export * from './oncall-config';
export * from './oncall.decider';
export * from './escalation';
export * from './service-assignment';
export * from './step-targets';
export * from './heartbeat';
