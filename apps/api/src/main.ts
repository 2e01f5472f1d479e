import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '@im/config';
import { ReadModelsAheadError } from '@im/read-models';
import { createApp } from './create-app';
import { closeOnSignals } from './graceful-shutdown';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  const logger = new Logger('Bootstrap');
  closeOnSignals(app, config.http.shutdownGraceMs, logger);
  logger.log(
    `Incident service (${config.env}) listening on ${await app.getUrl()}, data in ${config.dataDir}`,
  );
}

main().catch((error: unknown) => {
  // A configuration mistake is one clear line, not a stack trace.
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else if (error instanceof ReadModelsAheadError) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
