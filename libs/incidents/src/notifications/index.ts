export * from './quiet-hours';
export * from './notification-rules';
export * from './push-subscriptions';
export * from './user-stream';
