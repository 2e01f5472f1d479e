export * from './sqlite-event-store';
