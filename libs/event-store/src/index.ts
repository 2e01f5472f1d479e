export * from './event-store.port';
export * from './follow-log';
export * from './adapters/sqlite/sqlite-event-store';
export * from './adapters/kurrentdb/kurrentdb-event-store';
export * from './storage-fault';
