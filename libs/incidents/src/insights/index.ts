export * from './incident-metrics';
export * from './metrics-groups';
