export * from './alert-routing';
