// The PostgreSQL runtime the PostgreSQL adapters share (EVENT_STORE=postgres,
// READ_STORE=postgres; docs/architecture.md, "PostgreSQL"): the driver is
// node-postgres (`pg`), chosen in docs/decisions.md, "PostgreSQL".
//   postgres-pool.ts   a pool on POSTGRES_URL, 64-bit integers read as bigint
//   migrations.ts      numbered migrations per component, applied at start, recorded in schema_migrations; each component's status for validate
//   postgres-faults.ts the driver's errors that are the server's condition (lost, read-only, full) as storage faults
//   transaction.ts     work on one connection between BEGIN and COMMIT
export { openPostgresPool, type PostgresPoolOptions, redactedUrl } from './postgres-pool';
export { applyMigrations, type Migration, pendingMigrations, schemaStatus, type SchemaStatus } from './migrations';
export { postgresFault } from './postgres-faults';
export { inTransaction } from './transaction';
