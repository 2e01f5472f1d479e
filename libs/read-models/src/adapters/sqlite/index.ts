export * from './sqlite-read-store';
