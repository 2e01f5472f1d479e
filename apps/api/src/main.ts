import { ConfigError, loadConfig } from '@im/config';
import { asStorageError } from '@im/persistence';
import { ReadModelsAheadError } from '@im/read-models';
import { createApp } from './create-app';
import { closeOnSignals } from './graceful-shutdown';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  // Start and stop are announced at info even when LOG_LEVEL hides other info lines: operators (and scripts) wait for them.
  const lifecycle = app
    .getHttpAdapter()
    .getInstance()
    .log.child({ context: 'Lifecycle' }, { level: config.logLevel === 'silent' ? 'silent' : 'info' });
  closeOnSignals(app, config.http.shutdownGraceMs, lifecycle);
  lifecycle.info(`Incident service (${config.env}) listening on ${await app.getUrl()}, data in ${config.dataDir}`);
}

main().catch((error: unknown) => {
  // A configuration or storage problem is one clear line, not a stack trace.
  const storage = asStorageError(error);
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else if (storage) console.error(`Storage error: ${storage.message}`);
  else if (error instanceof ReadModelsAheadError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
