export * from './app-config';
export * from './config.schema';
