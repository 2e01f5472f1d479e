export * from './cloud-event';
export * from './incident-event.mapping';
