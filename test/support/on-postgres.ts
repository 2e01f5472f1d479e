import { dropKeptDatabases } from './app';

// The "e2e on PostgreSQL" project (jest.config.js): every app these suites start runs on a database of its own.
process.env.TEST_BACKENDS = 'postgres';
afterAll(() => dropKeptDatabases());
