export * from './quiet-hours';
export * from './notification-rules';
export * from './push-subscriptions';
