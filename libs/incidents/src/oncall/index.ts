export * from './schedule';
export * from './escalation';
