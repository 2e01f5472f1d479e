export * from './integration-key';
export * from './integration-key.decider';
