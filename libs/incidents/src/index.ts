export * from './incident';
export * from './lifecycle';
export * from './incident-events';
export * from './incident-commands';
export * from './domain-errors';
export * from './incident.decider';
export * from './notification-preferences';
export * from './incident.schema';
