export * from './quiet-hours';
export * from './notification-rules';
export * from './pages';
export * from './push-subscriptions';
export * from './user-stream';
