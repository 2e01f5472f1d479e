export * from './postgres-event-store';
export { EVENT_STORE_COMPONENT, EVENT_STORE_MIGRATIONS } from './migrations';
