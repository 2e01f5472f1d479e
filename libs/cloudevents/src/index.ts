export * from './cloud-event';
export * from './incident-event.mapping';
export * from './cloud-event.schema';
export * from './cloud-event.validator';
export * from './timestamp';
export * from './attribute-names';
export * from './http-binding';
export * from './event-sender';
