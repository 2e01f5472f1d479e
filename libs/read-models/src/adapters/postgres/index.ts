export * from './postgres-read-store';
export { READ_STORE_COMPONENT, READ_STORE_MIGRATIONS } from './postgres-schema';
