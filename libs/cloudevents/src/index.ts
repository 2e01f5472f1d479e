export * from './cloud-event';
export * from './incident-event.mapping';
export * from './cloud-event.schema';
export * from './cloud-event.validator';
export * from './timestamp';
