import { loadConfig } from '@im/config';
import { exitOnStartupFailure } from '@im/persistence';
import { createApp } from './create-app';
import { closeOnSignals } from './graceful-shutdown';

async function main(): Promise<void> {
  const config = loadConfig();
  // main.ts again, as a worker thread, computes the ledger's links off the event loop.
  const app = await createApp(config, { ledgerChainWorker: process.argv[1] });
  await app.listen(config.port, config.host);
  // Start and stop are announced at info even when LOG_LEVEL hides other info lines: operators (and scripts) wait for them.
  const lifecycle = app
    .getHttpAdapter()
    .getInstance()
    .log.child({ context: 'Lifecycle' }, { level: config.logLevel === 'silent' ? 'silent' : 'info' });
  closeOnSignals(app, config.http.shutdownGraceMs, lifecycle);
  lifecycle.info(`Incident service (${config.env}) listening on ${await app.getUrl()}, data in ${config.dataDir}`);
}

/** Starts the api (main.ts); a start that fails exits with one line. */
export const startApi = () => main().catch(exitOnStartupFailure);
