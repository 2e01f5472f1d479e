import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { type AppConfig, loadConfig } from '@im/config';
import { createApp } from '../../apps/api/src/create-app';
import { temporaryDatabase, type TemporaryDatabase } from './postgres-database';
import { tempDir } from './temp-dir';

export interface TestApp {
  app: NestFastifyApplication;
  http: () => ReturnType<typeof request>;
  config: AppConfig;
  close: () => Promise<void>;
}

/** The stores an app of the e2e suites runs on (TEST_BACKENDS), and what to remove once it closed. */
interface TestBackends {
  env: Record<string, string>;
  drop: () => Promise<void>;
}

/**
 * SQLite in DATA_DIR unless TEST_BACKENDS says otherwise. `postgres` (the
 * "e2e on PostgreSQL" project of jest.config.js): a database of the machine's
 * PostgreSQL per app, dropped when it closes; an app restarted on a kept
 * DATA_DIR finds the same database. `production` (`npm run test:production`,
 * with KURRENTDB_URL and MONGODB_URL): that pair, a MongoDB database per app.
 */
async function testBackends(dataDir: string, keep: boolean): Promise<TestBackends> {
  const none = async () => undefined;
  if (process.env.TEST_BACKENDS === 'postgres') {
    const known = keptDatabases.get(dataDir);
    const database = known ?? (await temporaryDatabase('e2e'));
    if (keep) keptDatabases.set(dataDir, database);
    const env = { EVENT_STORE: 'postgres', READ_STORE: 'postgres', POSTGRES_URL: database.url };
    return { env, drop: keep ? none : () => database.drop() };
  }
  if (process.env.TEST_BACKENDS !== 'production') return { env: {}, drop: none };
  const { KURRENTDB_URL, MONGODB_URL } = process.env;
  if (!KURRENTDB_URL || !MONGODB_URL) throw new Error('TEST_BACKENDS=production needs KURRENTDB_URL and MONGODB_URL');
  // Each app gets its own database, so suites do not see each other's read models.
  const mongo = new URL(MONGODB_URL);
  mongo.pathname = `/im_e2e_${Date.now()}_${Math.random().toString(16).slice(2, 8)}`;
  return { env: { EVENT_STORE: 'kurrentdb', KURRENTDB_URL, READ_STORE: 'mongodb', MONGODB_URL: mongo.toString() }, drop: none };
}

/** PostgreSQL databases of apps started on a kept DATA_DIR, by that directory: a restart finds its data. */
const keptDatabases = new Map<string, TemporaryDatabase>();

/** Drops the databases of kept data directories: call once the suite's last app on them closed. */
export async function dropKeptDatabases(): Promise<void> {
  await Promise.all([...keptDatabases.values()].map((database) => database.drop()));
  keptDatabases.clear();
}

/** The whole api in-process, on a fresh DATA_DIR (or the given one), with its real SQLite stores. */
export async function startTestApp(env: Record<string, string> = {}, keepDataDir?: string): Promise<TestApp> {
  const dir = keepDataDir ? { path: keepDataDir, remove: () => undefined } : tempDir('app');
  const backends = await testBackends(dir.path, keepDataDir !== undefined);
  const config = loadConfig({ DATA_DIR: dir.path, APP_ENV: 'development', LOG_LEVEL: 'error', ...backends.env, ...env });
  const app = await createApp(config).catch(async (error: unknown) => {
    await backends.drop();
    throw error;
  });
  return {
    app,
    config,
    http: () => request(app.getHttpServer()),
    close: async () => {
      await app.close();
      dir.remove();
      await backends.drop();
    },
  };
}
