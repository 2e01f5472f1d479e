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

/** The whole api in-process, on a fresh DATA_DIR (or the given one), with its real SQLite stores. */
export async function startTestApp(env: Record<string, string> = {}, keepDataDir?: string): Promise<TestApp> {
  const dir = keepDataDir ? { path: keepDataDir, remove: () => undefined } : tempDir('app');
  const config = loadConfig({ DATA_DIR: dir.path, APP_ENV: 'development', ...env });
  const app = await createApp(config, ['error']);
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
