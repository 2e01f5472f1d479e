/** Paging: the targets a policy pages at an instant, the service an opening belongs to, and the durable timers that escalate. */
export * from './due-work';
export * from './escalations-due';
export * from './heartbeats-due';
export * from './paging-plans';
export * from './paging.module';
export * from './service-assignments';
export * from './timer-runner';
export * from './timers.module';
export * from './opening-envelope';
