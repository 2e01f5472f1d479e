import { loadConfig } from '@im/config';
import { exitOnStartupFailure } from '@im/persistence';
import { createApp } from './create-app';
import { closeOnSignals } from './graceful-shutdown';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config, { takesAppends: true });
  await app.listen(config.port, config.host);
  // Start and stop are announced at info even when LOG_LEVEL hides other info lines: operators (and scripts) wait for them.
  const lifecycle = app
    .getHttpAdapter()
    .getInstance()
    .log.child({ context: 'Lifecycle' }, { level: config.logLevel === 'silent' ? 'silent' : 'info' });
  closeOnSignals(app, config.http.shutdownGraceMs, lifecycle);
  lifecycle.info(`Incident service (${config.env}) listening on ${await app.getUrl()}, data in ${config.dataDir}`);
}

// A start that fails exits with one line.
void main().catch(exitOnStartupFailure);
