export * from './webhook.decider';
