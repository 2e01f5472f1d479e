export * from './kurrentdb-event-store';
