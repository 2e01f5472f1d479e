export * from './persistence.module';
export * from './projections.module';
export * from './data-dir-lock';
