export * from './persistence.module';
export * from './projections.module';
