export * from './persistence.module';
export * from './projections.module';
export * from './data-dir-lock';
export * from './storage-error';
export * from './storage-checks';
export * from './startup-failure';
