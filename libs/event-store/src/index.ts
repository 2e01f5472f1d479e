// The event store port and helpers. The adapters are entry points of their own
// (@im/event-store/sqlite, @im/event-store/kurrentdb), so that importing a helper
// from here loads neither better-sqlite3 nor the KurrentDB client.
export * from './event-store.port';
export * from './append-checks';
export * from './follow-log';
export * from './storage-fault';
export * from './ledger-chaining';
