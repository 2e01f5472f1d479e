export * from './mongodb-read-store';
