import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { type AppConfig, loadConfig } from '@im/config';
import { createApp } from '../../apps/api/src/create-app';
import { tempDir } from './temp-dir';

export interface TestApp {
  app: NestFastifyApplication;
  http: () => ReturnType<typeof request>;
  config: AppConfig;
  close: () => Promise<void>;
}

/**
 * `npm run test:production` sets TEST_BACKENDS=production with KURRENTDB_URL and
 * MONGODB_URL: the e2e suites then run against that pair instead of SQLite.
 */
function productionPair(): Record<string, string> {
  if (process.env.TEST_BACKENDS !== 'production') return {};
  const { KURRENTDB_URL, MONGODB_URL } = process.env;
  if (!KURRENTDB_URL || !MONGODB_URL) throw new Error('TEST_BACKENDS=production needs KURRENTDB_URL and MONGODB_URL');
  // Each app gets its own database, so suites do not see each other's read models.
  const mongo = new URL(MONGODB_URL);
  mongo.pathname = `/im_e2e_${Date.now()}_${Math.random().toString(16).slice(2, 8)}`;
  return { EVENT_STORE: 'kurrentdb', KURRENTDB_URL, READ_STORE: 'mongodb', MONGODB_URL: mongo.toString() };
}

/** The whole api in-process, on a fresh DATA_DIR (or the given one), with its real SQLite stores. */
export async function startTestApp(env: Record<string, string> = {}, keepDataDir?: string): Promise<TestApp> {
  const dir = keepDataDir ? { path: keepDataDir, remove: () => undefined } : tempDir('app');
  const config = loadConfig({ DATA_DIR: dir.path, APP_ENV: 'development', LOG_LEVEL: 'error', ...productionPair(), ...env });
  const app = await createApp(config);
  return {
    app,
    config,
    http: () => request(app.getHttpServer()),
    close: async () => {
      await app.close();
      dir.remove();
    },
  };
}
