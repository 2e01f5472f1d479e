export * from './sqlite-read-store';
export type { SqliteBackgroundWrites, WriteStep } from './sqlite-writes';
