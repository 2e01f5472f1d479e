export * from './incident-metrics';
